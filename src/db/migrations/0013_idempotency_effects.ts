// Migration 0013: an Idempotency-Key's effect is recorded in the transaction that makes it (state 'committed', with a
// reference to what it made), so a crash between the effect and the stored response can no longer run the request
// twice: the retry rebuilds the response from the reference instead (docs/http.md "Idempotency").
import { sql, type Kysely, type Migration } from 'kysely';

export const m0013_idempotency_effects: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE idempotency_records ADD COLUMN effect_ref text NULL`.execute(db);
    await sql`ALTER TABLE idempotency_records DROP CONSTRAINT idempotency_records_state_check`.execute(db);
    await sql`ALTER TABLE idempotency_records ADD CONSTRAINT idempotency_records_state_check CHECK (state IN ('in_progress', 'committed', 'done'))`.execute(db);
  },
};
