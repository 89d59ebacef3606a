// Migration 0015: market resolution as the resolver's logs tell it (issue 16). Every resolver log of a known market is
// kept (keyed by the log, so a batch applied twice counts it once; a reorg deletes those above its ancestor), and
// each market's record is the fold of its logs (src/core/resolution/record.ts), with the columns queues and reads
// filter on. docs/resolution.md.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0015_market_resolutions: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE resolution_logs (
      chain_id integer NOT NULL,
      tx_hash text NOT NULL,
      log_index integer NOT NULL,
      block_number bigint NOT NULL,
      market text NOT NULL CHECK (market = lower(market)),
      log jsonb NOT NULL,
      PRIMARY KEY (chain_id, tx_hash, log_index)
    )`.execute(db);
    await sql`CREATE INDEX resolution_logs_market_idx ON resolution_logs (chain_id, market, block_number, log_index)`.execute(db);
    await sql`CREATE INDEX resolution_logs_block_idx ON resolution_logs (chain_id, block_number)`.execute(db);
    await sql`CREATE TABLE market_resolutions (
      chain_id integer NOT NULL,
      market text NOT NULL CHECK (market = lower(market)),
      phase text NOT NULL CHECK (phase IN ('proposed', 'disputed', 'voting', 'council', 'resolved')),
      vote_round smallint NOT NULL,
      challenge_deadline timestamptz NULL,
      vote_deadline timestamptz NULL,
      final_outcome smallint NULL,
      record jsonb NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (chain_id, market)
    )`.execute(db);
    await sql`CREATE INDEX market_resolutions_phase_idx ON market_resolutions (chain_id, phase)`.execute(db);
  },
};
