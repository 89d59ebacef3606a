// Migration 0016: the published ballots of human votes (issue 16). One counts per identity and round (linked wallets
// vote as one); every ballot keeps its EIP-712 signature so anyone can recount the verdict the resolver recorded.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0016_vote_ballots: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE vote_ballots (
      id uuid PRIMARY KEY,
      chain_id integer NOT NULL,
      market text NOT NULL CHECK (market = lower(market)),
      round smallint NOT NULL CHECK (round IN (1, 2)),
      identity_key text NOT NULL,
      wallet_address text NOT NULL CHECK (wallet_address = lower(wallet_address)),
      outcome smallint NOT NULL CHECK (outcome >= 0),
      signature text NOT NULL,
      cast_at timestamptz NOT NULL,
      UNIQUE (chain_id, market, round, identity_key),
      UNIQUE (chain_id, market, round, wallet_address)
    )`.execute(db);
  },
};
