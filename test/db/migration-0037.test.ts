// Migration 0037 on both back ends, from a database at 0036 holding outbox events and ledger operations written as
// jsonb: both columns become json, every value reads back as it did, and the queries inside them still answer
// (`payload->>'fillId'`, `op->>'account'`). New values keep the text they were written with (keys in their order).
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/index.ts';
import { readDatabaseSchema } from '../support/schema-truth.ts';
import { backends, migratedTo, type Backend } from './backends.ts';

const BEFORE = '0036_leaderboard_pending';

/** The two columns' types, as the schema check reads them (test/support/schema-truth.ts). */
async function payloadTypes(db: Kysely<unknown>): Promise<[string | undefined, string | undefined]> {
  const relations = await readDatabaseSchema(db);
  const udt = (table: string, column: string) => relations.find((r) => r.name === table)?.columns.find((c) => c.name === column)?.udt;
  return [udt('events', 'payload'), udt('ledger_operations', 'op')];
}

for (const b of await backends()) {
  describe.skipIf(b.skip)(`migration 0037 on ${b.name}`, () => {
    let backend: Backend;
    beforeAll(() => {
      backend = b.make();
    });
    afterAll(async () => backend?.cleanup());

    it('turns event payloads and ledger operations into json, each value reading back as before', async () => {
      const db = await migratedTo(backend, BEFORE);
      const trade = { kind: 'orderbook', fillId: '7', outcome: 0, side: 'buy', shares: '3000000', price: '0.57', nested: { b: [1, null, 'x'], a: true } };
      await sql`INSERT INTO events (seq, type, chain_id, market_address, agent_id, payload, created_at) VALUES (1, 'market.trade', 8453, NULL, NULL, ${JSON.stringify(trade)}::jsonb, now())`.execute(db);
      const credit = { account: '0x' + 'ab'.repeat(20), asset: '0', amount: '1000000' };
      await sql`INSERT INTO ledger_operations (seq, kind, op, source, created_at) OVERRIDING SYSTEM VALUE VALUES (1, 'credit', ${JSON.stringify(credit)}::jsonb, 'payout:8453:0xm#0', now())`.execute(db);
      expect(await payloadTypes(db)).toEqual(['jsonb', 'jsonb']);

      await migrateToLatest(db);

      expect(await payloadTypes(db)).toEqual(['json', 'json']);
      const event = await sql<{ payload: unknown; fill: string }>`SELECT payload, payload->>'fillId' AS fill FROM events WHERE seq = 1`.execute(db);
      expect(event.rows).toEqual([{ payload: trade, fill: '7' }]);
      const op = await sql<{ op: unknown }>`SELECT op FROM ledger_operations WHERE op->>'account' = ${credit.account}`.execute(db);
      expect(op.rows).toEqual([{ op: credit }]);

      // Written now: the text as sent, keys in their order (jsonb would put the shorter ones first).
      const written = { zeta: 1, a: 2, mid: { yy: 1, x: 2 } };
      await sql`INSERT INTO events (seq, type, payload, created_at) VALUES (2, 'test', ${JSON.stringify(written)}::json, now())`.execute(db);
      const back = await sql<{ text: string }>`SELECT payload::text AS text FROM events WHERE seq = 2`.execute(db);
      expect(back.rows[0]!.text).toBe(JSON.stringify(written));
    });
  });
}
