// Migration 0037: an outbox event's payload and a ledger operation are kept as json, not jsonb (issue 22), as an
// Idempotency-Key's answer is (0033). An order writes ~3 events (an execution:report per order and per fill side, a
// market.trade per fill) and ~0.7 ledger operations; jsonb parses each value into its binary form on the way in and
// prints it again on every read (the event transports, the ledger batcher), where json only checks the text and hands
// it back as written. Timed in PGlite, alternating batches of 45 order-event rows in one process: 62 µs a row as json
// against 89 as jsonb. Nothing indexes or compares these values; the queries inside them (POST /orderbook/events joins
// a fill by `payload->>'fillId'`, the claims list reads `op->>'account'`) have the same operator on json. Both types
// read back as parsed JSON; an event's keys now come back in the order they were written, not jsonb's.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0037_payloads_json: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE events ALTER COLUMN payload TYPE json USING payload::json`.execute(db);
    await sql`ALTER TABLE ledger_operations ALTER COLUMN op TYPE json USING op::json`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE events ALTER COLUMN payload TYPE jsonb USING payload::jsonb`.execute(db);
    await sql`ALTER TABLE ledger_operations ALTER COLUMN op TYPE jsonb USING op::jsonb`.execute(db);
  },
};
