// Migration 0040: fewer index entries for the ledger's writes (issue 22; docs/orderbook.md, session 26). Every
// placement with fills updates ~2 balance rows and appends ~0.7 operations; the write-ahead log of the order bench
// showed each update as a new row version with an entry in both of ledger_balances' indexes, and each operation with
// an entry in the source index although only credits have a source.
// - ledger_balances by asset without the balance: an update changes no indexed column, so it can stay on its page
//   without index entries (a heap-only update); the holders' read (services/orderbook/reads.ts) sums and ranks an
//   asset's rows all the same. A page keeps a fifth free for those updates.
// - ledger_operations' source: unique among the operations that have one (NULLs never collided anyway), in the text
//   pattern order so the look-up of a source's operations (`source LIKE 'x#%'`, services/ledger/ledger.ts) reads
//   the index whatever the database's collation.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`DROP INDEX ledger_balances_asset_idx`,
  sql`CREATE INDEX ledger_balances_asset_idx ON ledger_balances (asset_id)`,
  sql`ALTER TABLE ledger_balances SET (fillfactor = 80)`,
  sql`ALTER TABLE ledger_operations DROP CONSTRAINT ledger_operations_source_key`,
  sql`CREATE UNIQUE INDEX ledger_operations_source_key ON ledger_operations (source text_pattern_ops) WHERE source IS NOT NULL`,
];

export const m0040_ledger_write_indexes: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
};
