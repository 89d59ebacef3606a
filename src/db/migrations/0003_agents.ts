// Migration 0003: agents (the identity behind API keys).
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE TABLE agents (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    wallet_address text NULL UNIQUE CHECK (wallet_address = lower(wallet_address)),
    email text NULL,
    email_verified boolean NOT NULL DEFAULT false,
    human_id_verified boolean NOT NULL DEFAULT false,
    registration_path text NOT NULL CHECK (registration_path IN ('anonymous', 'email', 'wallet', 'claim', 'operator')),
    owner_email text NULL,
    claimed_at timestamptz NULL,
    created_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX agents_owner_email_idx ON agents (lower(owner_email))`,
  sql`ALTER TABLE api_keys ADD CONSTRAINT api_keys_agent_fk FOREIGN KEY (agent_id) REFERENCES agents (id)`,
];

export const m0003_agents: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await statement.execute(db);
  },
};
