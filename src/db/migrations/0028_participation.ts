// Migration 0028: participation release (issue 21; docs/participation.md). Credits are booked per member and UTC day
// by the crediting pass (one row a day at most: the key); an intent is one prepared distribution with the voucher the
// operator signed for it; settings hold the operator's quarantine switch.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0028_participation: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE participation_credits (
      member_key text NOT NULL,
      day date NOT NULL,
      amount numeric(78, 0) NOT NULL CHECK (amount > 0),
      release_id text NOT NULL,
      credited_at timestamptz NOT NULL,
      PRIMARY KEY (member_key, day)
    )`.execute(db);
    await sql`CREATE TABLE participation_intents (
      id text PRIMARY KEY,
      release_id text NOT NULL,
      member_key text NOT NULL,
      agent_id uuid NOT NULL,
      account text NOT NULL,
      recipient text NOT NULL,
      recipient_relation text NOT NULL,
      delivery_mode text NOT NULL CHECK (delivery_mode IN ('self_claim', 'protocol_push')),
      cumulative_amount numeric(78, 0) NOT NULL,
      delta numeric(78, 0) NOT NULL CHECK (delta > 0),
      epoch bigint NOT NULL,
      expires_at timestamptz NOT NULL,
      signature text NOT NULL,
      status text NOT NULL CHECK (status IN ('prepared', 'submitted', 'expired_awaiting_finality', 'projection_pending', 'paid', 'unpaid', 'failed')),
      transaction_hash text NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      paid_at timestamptz NULL
    )`.execute(db);
    await sql`CREATE INDEX participation_intents_member ON participation_intents (member_key, created_at DESC)`.execute(db);
  },
};
