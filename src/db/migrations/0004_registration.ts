// Migration 0004: what the email, claim and anonymous registration paths need — single-use email
// links (magic links, claim links, bind-email links), the durable mail outbox, and the per-month
// fill-allowance counters GET /me reports.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE TABLE email_links (
    id uuid PRIMARY KEY,
    token_hash text NOT NULL UNIQUE,
    purpose text NOT NULL CHECK (purpose IN ('verify-email', 'bind-email', 'claim')),
    agent_id uuid NOT NULL REFERENCES agents (id),
    email text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at timestamptz NULL
  )`,
  sql`CREATE INDEX email_links_agent_idx ON email_links (agent_id)`,
  sql`CREATE TABLE mail_outbox (
    id uuid PRIMARY KEY,
    to_address text NOT NULL,
    subject text NOT NULL,
    body_text text NOT NULL,
    created_at timestamptz NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    last_error text NULL,
    lease_until timestamptz NULL,
    sent_at timestamptz NULL,
    transport text NULL
  )`,
  sql`CREATE INDEX mail_outbox_pending_idx ON mail_outbox (created_at) WHERE sent_at IS NULL`,
  sql`ALTER TABLE agents ADD COLUMN paid_fills_remaining integer NOT NULL DEFAULT 0 CHECK (paid_fills_remaining >= 0)`,
  sql`CREATE TABLE fill_usage (
    agent_id uuid NOT NULL REFERENCES agents (id),
    month text NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
    free_used integer NOT NULL DEFAULT 0 CHECK (free_used >= 0),
    PRIMARY KEY (agent_id, month)
  )`,
];

export const m0004_registration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await statement.execute(db);
  },
};
