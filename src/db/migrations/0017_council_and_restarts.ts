// Migration 0017: council signatures and integrity restarts (issue 16). A council member's EIP-712 CouncilDecision
// signature is kept until the outcome it signs has the council's threshold, then the resolver gets them all in one
// councilDecide; an operator's integrity restart of a vote is a request the keeper carries out once (openVote round 2).
import { sql, type Kysely, type Migration } from 'kysely';

export const m0017_council_and_restarts: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE council_signatures (
      chain_id integer NOT NULL,
      market text NOT NULL CHECK (market = lower(market)),
      round smallint NOT NULL CHECK (round IN (1, 2)),
      signer text NOT NULL CHECK (signer = lower(signer)),
      outcome smallint NOT NULL CHECK (outcome >= 0),
      signature text NOT NULL,
      signed_at timestamptz NOT NULL,
      PRIMARY KEY (chain_id, market, round, signer)
    )`.execute(db);
    await sql`CREATE TABLE resolution_restarts (
      chain_id integer NOT NULL,
      market text NOT NULL CHECK (market = lower(market)),
      round smallint NOT NULL CHECK (round = 2),
      reason text NOT NULL,
      requested_at timestamptz NOT NULL,
      PRIMARY KEY (chain_id, market, round)
    )`.execute(db);
  },
};
