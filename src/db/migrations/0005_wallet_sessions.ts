// Migration 0005: consumer wallet sessions (Sign-In with Ethereum). The token is never stored:
// only its SHA-256; a session ends at expires_at or when revoked (logout).
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE TABLE wallet_sessions (
    id uuid PRIMARY KEY,
    token_hash text NOT NULL UNIQUE,
    wallet_address text NOT NULL CHECK (wallet_address = lower(wallet_address)),
    chain_id int NOT NULL,
    siwe_nonce text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL CHECK (expires_at > created_at),
    revoked_at timestamptz NULL,
    last_seen_at timestamptz NULL
  )`,
  sql`CREATE INDEX wallet_sessions_wallet_address_idx ON wallet_sessions (wallet_address)`,
  sql`CREATE INDEX wallet_sessions_expires_at_idx ON wallet_sessions (expires_at)`,
];

export const m0005_wallet_sessions: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await statement.execute(db);
  },
};
