// Migration 0042: a ledger operation's batch is the batch whose range of seqs holds it (issue 22; docs/ledger.md
// "Batcher", docs/orderbook.md session 28; src/services/ledger/batch-range.ts). The batcher wrote the batch's nonce on
// every operation it took: a row lock, a new version of the row and two index entries per operation, and an entry in
// the waiting operations' index when each was written. The batches' first_seq and last_seq said the same already; a
// unique index on last_seq finds an operation's batch (the first ending at or after its seq) and the last one.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE UNIQUE INDEX ledger_batches_last_seq_key ON ledger_batches (last_seq)`,
  sql`DROP INDEX ledger_operations_unbatched_idx`,
  sql`DROP INDEX ledger_operations_batch_idx`,
  sql`ALTER TABLE ledger_operations DROP COLUMN batch_nonce`,
];

export const m0042_ledger_batch_ranges: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
};
