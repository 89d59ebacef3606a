// The reads that lean on an index (docs/orderbook.md, session 26), as both back ends plan them on a migrated database:
// with sequential scans priced out, each is answered from its index, in its index's order.
import { CompiledQuery, sql, type Transaction } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/index.ts';
import { backends, migratedDatabase } from './backends.ts';
import { COLLATERAL_ASSET, outcomeAsset, type Account } from '../../src/core/ledger/types.ts';
import { balancesStep } from '../../src/services/ledger/rows.ts';
import { batchHolding, waitingOperations } from '../../src/services/ledger/batch-range.ts';

for (const b of await backends()) {
  describe.skipIf(b.skip)(`indexes on ${b.name}`, () => {
    const fresh = migratedDatabase(b);

    const plan = (query: (trx: Transaction<DB>) => Promise<{ rows: Record<string, unknown>[] }>) =>
      fresh.db().transaction().execute(async (trx) => {
        await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        return (await query(trx)).rows.map((r) => Object.values(r)[0] as string).join('\n');
      });

    it("pages an owner's orders newest first from (owner, seq), without sorting them (GET /orderbook/orders)", async () => {
      const text = await plan((trx) =>
        sql<Record<string, unknown>>`EXPLAIN SELECT * FROM orders WHERE owner = ${'0xaaaa00000000000000000000000000000000000a'} AND agent_id = ${'3f1c2d4e-0000-4000-8000-000000000001'}::uuid
          AND chain_id = ${8453} AND seq < ${'100'} ORDER BY seq DESC LIMIT 51`.execute(trx),
      );
      expect(text).toContain('orders_owner_idx');
      expect(text).not.toMatch(/\bSort\b/);
    });

    it("finds a ledger source's operations through its unique index, whatever the collation", async () => {
      const text = await plan((trx) => sql<Record<string, unknown>>`EXPLAIN SELECT seq FROM ledger_operations WHERE source LIKE 'signup-grant:x#%'`.execute(trx));
      expect(text).toContain('ledger_operations_source_key');
    });

    it('finds the waiting ledger operations, and an operation\'s batch, from the batches\' last seqs (services/ledger/batch-range.ts)', async () => {
      const waiting = await plan((trx) => {
        const q = waitingOperations(trx).select('seq').limit(256).compile();
        return trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`EXPLAIN ${q.sql}`, [...q.parameters]));
      });
      expect(waiting).toContain('ledger_operations_pkey');
      expect(waiting).toContain('ledger_batches_last_seq_key');
      const holding = await plan((trx) => {
        const q = trx.selectFrom('order_fills as f').leftJoinLateral(batchHolding(trx, sql.ref('f.ledger_seq')), (join) => join.onTrue()).select(['f.id', 'b.nonce']).where('f.id', '=', '1').compile();
        return trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`EXPLAIN ${q.sql}`, [...q.parameters]));
      });
      expect(holding).toContain('ledger_batches_last_seq_key');
    });

    it("reads a round's balances by probing each key's row, not by reading the whole table (services/ledger/rows.ts)", async () => {
      const db = fresh.db();
      // A table of the order bench's size, analysed: a plain join of the keys was planned as a hash join over all of it.
      const account = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as Account;
      const assets = [COLLATERAL_ASSET, outcomeAsset(5n, 0), outcomeAsset(5n, 1)];
      await sql`INSERT INTO ledger_balances (account, asset_id, balance)
        SELECT '0x' || lpad(to_hex(a), 40, '0'), x, 1000 FROM generate_series(1, 300) AS a, unnest(${assets.map(String)}::numeric[]) AS x`.execute(db);
      await sql`ANALYZE ledger_balances`.execute(db);
      const keys = Array.from({ length: 24 }, (_, i) => ({ account: account(1 + i * 7), assetId: assets[i % 3]! }));
      const step = balancesStep('ledger_balances', keys)!;
      const text = (await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`EXPLAIN ${step.query.sql}`, [...step.query.parameters]))).rows.map((r) => Object.values(r)[0]).join('\n');
      expect(text).toContain('ledger_balances_pkey');
      expect(text).not.toContain('Seq Scan on ledger_balances');
      expect(step.read(await db.executeQuery<Record<string, unknown>>(step.query))).toHaveLength(24);
    });
  });
}
