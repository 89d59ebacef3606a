// Migration 0019: money out of markets as the chain logged it (issue 17): each Redeemed, CreatorFeesCollected,
// BondReturned, BondSlashed, VoterRewardsPaid and ResidualSwept log of a market we registered, and the resolver's
// ChallengeBondSettled for it, kept once (keyed by the
// log) by the indexer in its batch transaction and deleted above the ancestor on a reorg. Claims read "claimed" from it,
// creator funds "collected" and "returned", the sweep "already swept"; amounts always come from chain reads. And the
// claims the protocol sends.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0019_market_payouts: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE market_payouts (
      chain_id integer NOT NULL,
      tx_hash text NOT NULL,
      log_index integer NOT NULL,
      block_number bigint NOT NULL,
      block_time timestamptz NOT NULL,
      market text NOT NULL CHECK (market = lower(market)),
      kind text NOT NULL CHECK (kind IN ('redeemed', 'creator_fees', 'bond_returned', 'bond_slashed', 'voter_rewards', 'residual_swept', 'challenge_bond')),
      recipient text NULL CHECK (recipient = lower(recipient)),
      amount numeric(78, 0) NOT NULL CHECK (amount >= 0),
      shares numeric(78, 0) NULL,
      PRIMARY KEY (chain_id, tx_hash, log_index)
    )`.execute(db);
    await sql`CREATE INDEX market_payouts_recipient_idx ON market_payouts (chain_id, recipient, kind)`.execute(db);
    await sql`CREATE INDEX market_payouts_market_idx ON market_payouts (chain_id, market, kind)`.execute(db);
    // A claim the protocol sends for a wallet (POST /claims/batch, /claims/sweep): the plan, kept with the request's
    // Idempotency-Key effect before the redemptions go out under the id as relayer operation, so a retry after a crash
    // finds the same transaction and never pays twice or loses a claim.
    await sql`CREATE TABLE claim_requests (
      id text PRIMARY KEY,
      chain_id integer NOT NULL,
      wallet text NOT NULL CHECK (wallet = lower(wallet)),
      plan jsonb NOT NULL,
      created_at timestamptz NOT NULL
    )`.execute(db);
  },
};
