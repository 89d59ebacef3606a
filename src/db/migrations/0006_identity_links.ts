// Migration 0006: identity linking — wallets grouped under one identity (one human vote per
// identity), the link codes a root hands out (stored hashed, 3-minute TTL) and the consents children
// submit with them. A wallet belongs to at most one identity: identity_members is keyed by wallet.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE TABLE identities (
    id uuid PRIMARY KEY,
    root_wallet text NOT NULL CHECK (root_wallet = lower(root_wallet)),
    created_at timestamptz NOT NULL,
    dissolved_at timestamptz NULL
  )`,
  sql`CREATE UNIQUE INDEX identities_live_root_idx ON identities (root_wallet) WHERE dissolved_at IS NULL`,
  sql`CREATE TABLE identity_link_codes (
    id uuid PRIMARY KEY,
    identity_id uuid NOT NULL REFERENCES identities (id),
    code_hash text NOT NULL UNIQUE,
    issued_by_agent_id uuid NOT NULL REFERENCES agents (id),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX identity_link_codes_expires_at_idx ON identity_link_codes (expires_at)`,
  sql`CREATE TABLE identity_link_consents (
    id uuid PRIMARY KEY,
    -- Submission order, exact even when two consents share a timestamp.
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    identity_id uuid NOT NULL REFERENCES identities (id),
    wallet_address text NOT NULL CHECK (wallet_address = lower(wallet_address)),
    agent_id uuid NOT NULL REFERENCES agents (id),
    status text NOT NULL CHECK (status IN ('pending', 'approved', 'cancelled')),
    created_at timestamptz NOT NULL,
    decided_at timestamptz NULL
  )`,
  // One pending consent per child and identity; the root lists them oldest first.
  sql`CREATE UNIQUE INDEX identity_link_consents_pending_idx ON identity_link_consents (identity_id, wallet_address) WHERE status = 'pending'`,
  sql`CREATE INDEX identity_link_consents_listing_idx ON identity_link_consents (identity_id, seq) WHERE status = 'pending'`,
  sql`CREATE INDEX identity_link_consents_wallet_idx ON identity_link_consents (wallet_address) WHERE status = 'pending'`,
  sql`CREATE TABLE identity_members (
    wallet_address text PRIMARY KEY CHECK (wallet_address = lower(wallet_address)),
    identity_id uuid NOT NULL REFERENCES identities (id),
    role text NOT NULL CHECK (role IN ('root', 'member')),
    consent_id uuid NULL REFERENCES identity_link_consents (id),
    linked_at timestamptz NOT NULL,
    CHECK ((role = 'root') = (consent_id IS NULL))
  )`,
  sql`CREATE INDEX identity_members_identity_idx ON identity_members (identity_id)`,
  sql`CREATE UNIQUE INDEX identity_members_one_root_idx ON identity_members (identity_id) WHERE role = 'root'`,
];

export const m0006_identity_links: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await statement.execute(db);
  },
};
