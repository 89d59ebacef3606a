// Migration 0018: what was counted and decided, once (issue 16). A round's tally is frozen by the keeper before it
// records the verdict on chain — a ballot arriving after it is refused, so every published ballot was counted or
// refused, and a retry sends the same verdict; a council decision is marked once, by the signature that reached the
// threshold or by the CouncilDecided log, whichever comes first, and announces market.councilReview {decided} once.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0018_vote_tallies: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE vote_tallies (
      chain_id integer NOT NULL,
      market text NOT NULL CHECK (market = lower(market)),
      round smallint NOT NULL CHECK (round IN (1, 2)),
      verdict text NOT NULL CHECK (verdict IN ('binding', 'no_quorum', 'deadlock')),
      outcome smallint NULL,
      leading_outcome smallint NOT NULL,
      ballot_root text NOT NULL,
      ballot_count integer NOT NULL CHECK (ballot_count >= 0),
      counted_at timestamptz NOT NULL,
      PRIMARY KEY (chain_id, market, round)
    )`.execute(db);
    await sql`CREATE TABLE council_decisions (
      chain_id integer NOT NULL,
      market text NOT NULL CHECK (market = lower(market)),
      round smallint NOT NULL CHECK (round IN (1, 2)),
      decided_at timestamptz NOT NULL,
      PRIMARY KEY (chain_id, market, round)
    )`.execute(db);
  },
};
