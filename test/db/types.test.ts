// Both back ends hand the app the same JS types (int8/numeric as strings, Date, parsed jsonb) and
// enforce the same constraints; toCount accepts what either returns.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { toCount, type DB } from '../../src/db/index.ts';
import { backends, migratedDatabase, type Backend } from './backends.ts';
import { replayable } from '../support/property.ts';

describe('toCount', () => {
  it('normalises numbers, strings and bigints', () => {
    expect(toCount(3)).toBe(3);
    expect(toCount('42')).toBe(42);
    expect(toCount(7n)).toBe(7);
    expect(toCount('0')).toBe(0);
  });
  it('refuses what is not an exact integer', () => {
    for (const bad of [1.5, '1.5', '', 'abc', null, undefined, '9007199254740993', 2n ** 60n, Number.NaN, {}]) {
      expect(() => toCount(bad)).toThrow(/not an integer count/);
    }
  });
});

const NOW = new Date('2026-01-02T03:04:05.678Z');

for (const b of await backends()) {
  describe.skipIf(b.skip)(`types and constraints on ${b.name}`, () => {
    const fresh = migratedDatabase(b);
    let backend: Backend;
    let db: Kysely<DB>;
    beforeAll(() => {
      [backend, db] = [fresh.backend(), fresh.db()];
    });

    it('int8 and numeric come back as strings, timestamptz as Date, count(*) via toCount', async () => {
      const big = '9007199254740993'; // 2^53 + 1: a JS number would round it
      await db
        .insertInto('deployments')
        .values([
          { ...deployment('Big'), from_block: big },
          { ...deployment('Small'), from_block: 5n },
        ])
        .execute();
      const rows = await db.selectFrom('deployments').select(['name', 'from_block', 'created_at']).orderBy('name').execute();
      expect(rows).toEqual([
        { name: 'Big', from_block: big, created_at: NOW },
        { name: 'Small', from_block: '5', created_at: NOW },
      ]);
      expect(rows[0]?.created_at).toBeInstanceOf(Date);

      const { rows: raw } = await sql<{ i8: unknown; num: unknown; big_num: unknown; i4: unknown; ts: unknown }>`
        SELECT 9223372036854775807::int8 AS i8, 12.50::numeric AS num,
               123456789012345678901234567890::numeric AS big_num, 7::int4 AS i4,
               '2026-01-02T03:04:05.678Z'::timestamptz AS ts`.execute(db);
      expect(raw[0]).toEqual({
        i8: '9223372036854775807',
        num: '12.50',
        big_num: '123456789012345678901234567890',
        i4: 7,
        ts: NOW,
      });

      const count = await db.selectFrom('deployments').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(typeof count.n).toBe('string'); // with our parsers, on both back ends
      expect(toCount(count.n)).toBe(2);
    });

    it.runIf(b.name === 'postgres')('our pool ignores a global pg int8 parser set by other code', async () => {
      pg.types.setTypeParser(20, (v: string) => Number(v));
      try {
        const other = await backend.fresh();
        const { rows } = await sql<{ n: unknown }>`SELECT 5::int8 AS n`.execute(other.db);
        expect(rows[0]?.n).toBe('5');
      } finally {
        pg.types.setTypeParser(20, (v: string) => v);
      }
    });

    it('an array of texts comes back as it was sent, whatever its characters (src/db/array-literal.ts)', async () => {
      // Any text PostgreSQL can hold: no NUL, no lone surrogate (UTF-8 has none). JSON texts, as the order loop sends them.
      const storable = fc.string({ unit: 'grapheme', maxLength: 12 }).map((t) => t.replaceAll('\u0000', ''));
      const tricky = fc.string({ unit: fc.constantFrom('"', '\\', ',', '{', '}', ' ', 'NULL', '\n', '\t', '\u0001', '\u007f', '\u2028', 'é', '🎲'), maxLength: 12 });
      const text = fc.oneof(storable, tricky, fc.json().map((j) => j.replaceAll('\u0000', '')));
      await fc.assert(
        fc.asyncProperty(fc.array(fc.option(text, { nil: null }), { maxLength: 6 }), async (values) => {
          const { rows } = await sql<{ v: string | null }>`SELECT v FROM unnest(${values}::text[]) WITH ORDINALITY AS u (v, i) ORDER BY i`.execute(db);
          expect(rows.map((r) => r.v)).toEqual(values);
        }),
        replayable({ numRuns: 150 }),
      );
    });

    it('jsonb round-trips when written as JSON text', async () => {
      const id = randomUUID();
      await db
        .insertInto('api_keys')
        .values({
          id,
          prefix: 'svc_live_ab12cd',
          key_hash: 'a'.repeat(64),
          agent_id: null,
          label: null,
          tier: 'propose',
          scopes: JSON.stringify(['markets:read', 'orders:write']),
          status: 'active',
          expires_at: null,
          created_at: NOW,
          revoked_at: null,
          last_used_at: null,
        })
        .execute();
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.scopes).toEqual(['markets:read', 'orders:write']);
      expect(row.expires_at).toBeNull();

      await db
        .insertInto('kv_settings')
        .values({ key: 'k', value: JSON.stringify({ a: [1, 'x'], b: null }), updated_at: NOW })
        .execute();
      const kv = await db.selectFrom('kv_settings').select('value').executeTakeFirstOrThrow();
      expect(kv.value).toEqual({ a: [1, 'x'], b: null });
    });

    it('check and unique constraints hold', async () => {
      const key = (over: Record<string, unknown>) =>
        db
          .insertInto('api_keys')
          .values({
            id: randomUUID(),
            prefix: 'svc_live_x',
            key_hash: randomUUID(),
            agent_id: null,
            label: null,
            tier: 'execute',
            scopes: '[]',
            status: 'dormant',
            expires_at: null,
            created_at: NOW,
            revoked_at: null,
            last_used_at: null,
            ...over,
          })
          .execute();
      await expect(key({ tier: 'admin' })).rejects.toThrow(/api_keys_tier_check/);
      await expect(key({ status: 'expired' })).rejects.toThrow(/api_keys_status_check/);
      await expect(key({ scopes: '{"a":1}' })).rejects.toThrow(/api_keys_scopes_check/);
      await key({ key_hash: 'dup' });
      await expect(key({ key_hash: 'dup' })).rejects.toThrow(/api_keys_key_hash_key/);

      const tx = (over: Record<string, unknown>) =>
        db
          .insertInto('relayer_transactions')
          .values({
            operation_id: randomUUID(),
            idempotency_key: randomUUID(),
            chain_id: 8453,
            from_address: '0xabc',
            nonce: 0n,
            to_address: null,
            data: '0x',
            value: '0',
            gas: null,
            max_fee_per_gas: null,
            max_priority_fee_per_gas: null,
            raw_tx: null,
            tx_hash: null,
            state: 'prepared',
            submitted_at: null,
            block_number: null,
            block_hash: null,
            contract_address: null,
            error: null,
            created_at: NOW,
            updated_at: NOW,
            ...over,
          })
          .execute();
      await expect(tx({ value: '1.5' })).rejects.toThrow(/relayer_transactions_value_check/);
      await expect(tx({ state: 'mined' })).rejects.toThrow(/relayer_transactions_state_check/);
      await tx({ nonce: '7' });
      await expect(tx({ nonce: '7' })).rejects.toThrow(/relayer_transactions_chain_id_from_address_nonce_key/);
      const stored = await db.selectFrom('relayer_transactions').select(['nonce', 'block_number']).execute();
      expect(stored).toEqual([{ nonce: '7', block_number: null }]);

      await expect(db.insertInto('event_sequence').values({ id: 2 }).execute()).rejects.toThrow(
        /event_sequence_id_check/,
      );
    });

    it('stream() yields rows on PGlite; on pg it needs pg-cursor, which we do not configure', async () => {
      const collect = async () => {
        const rows: string[] = [];
        for await (const r of db.selectFrom('deployments').select('name').orderBy('name').stream(1)) rows.push(r.name);
        return rows;
      };
      if (backend.kind === 'pglite') expect(await collect()).toEqual(['Big', 'Small']);
      else await expect(collect()).rejects.toThrow(/'cursor' is not present/);
    });
  });
}

function deployment(name: string) {
  return {
    chain_id: 8453,
    name,
    address: '0x0000000000000000000000000000000000000001',
    from_block: '1',
    deployment_tx_hash: '0x01',
    deployment_block_hash: '0x02',
    runtime_code_hash: '0x03',
    bytecode_hash: '0x04',
    created_at: NOW,
  };
}
