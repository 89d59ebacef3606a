// Migration 0020: webhooks (issue 18; docs/events.md "Webhooks"). An agent's endpoints, each with its sealed signing
// secret (and the previous one while a rotation overlaps), its filter, and the outbox sequence it has been scheduled up
// to; and one delivery per (endpoint, event) with its attempts, so deliveries survive a restart and each attempt is
// claimed by one sender (FOR UPDATE SKIP LOCKED) when several processes share the database.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0020_webhooks: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY,
      agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
      url text NOT NULL,
      description text NULL,
      filter jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'disabled')),
      disabled_reason text NULL CHECK (disabled_reason IN ('GONE', 'FAILING', 'MANUAL')),
      secret_sealed text NOT NULL,
      previous_secret_sealed text NULL,
      previous_secret_expires_at timestamptz NULL,
      cursor_seq bigint NOT NULL CHECK (cursor_seq >= 0),
      failing_since timestamptz NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((status = 'active') = (disabled_reason IS NULL))
    )`.execute(db);
    await sql`CREATE INDEX webhook_endpoints_agent_idx ON webhook_endpoints (agent_id, created_at)`.execute(db);
    await sql`CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY,
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_seq bigint NOT NULL REFERENCES events (seq),
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'abandoned')),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      next_attempt_at timestamptz NULL,
      last_attempt_at timestamptz NULL,
      last_status_code integer NULL,
      last_error text NULL,
      created_at timestamptz NOT NULL,
      delivered_at timestamptz NULL,
      UNIQUE (endpoint_id, event_seq),
      CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
    )`.execute(db);
    await sql`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`.execute(db);
  },
};
