// Migration 0002: single-use authentication nonces (wallet proofs, SIWE), TTL 300 s.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE TABLE auth_nonces (
    nonce text PRIMARY KEY,
    issued_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    consumed_at timestamptz NULL,
    consumed_for text NULL
  )`,
  sql`CREATE INDEX auth_nonces_expires_at_idx ON auth_nonces (expires_at)`,
];

export const m0002_auth_nonces: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await statement.execute(db);
  },
};
