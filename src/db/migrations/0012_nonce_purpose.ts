// Migration 0012: a nonce is issued for one purpose and consumed only for it. Before, a human-check salt (a nonce of
// the same table) was accepted as a wallet-proof or sign-in nonce. Existing nonces are the auth endpoint's.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0012_nonce_purpose: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE auth_nonces ADD COLUMN purpose text NOT NULL DEFAULT 'auth' CHECK (purpose IN ('auth', 'human-check'))`.execute(db);
  },
};
