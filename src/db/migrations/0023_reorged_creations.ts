// Migration 0023: creations a reorg took away (issue 19; docs/markets.md "Indexer"). One row per voided creation
// transaction, so that when the same transaction is mined again at another address (the factory's nonce was taken
// by another creation meanwhile) the indexer announces where the market went: market.cancelled with relocatedTo.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0023_reorged_creations: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE reorged_creations (
      chain_id integer NOT NULL,
      created_tx text NOT NULL,
      address text NOT NULL,
      question_hash text NOT NULL,
      voided_at timestamptz NOT NULL,
      relocated_to text NULL,
      PRIMARY KEY (chain_id, created_tx)
    )`.execute(db);
  },
};
