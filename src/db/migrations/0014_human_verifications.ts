// Migration 0014: who is a verified human (issue 16: one human vote per identity). A verification is attested for one
// wallet by a verifier (the embedded default: the operator, `svc identity verify`); every wallet linked under the
// same identity shares it. It replaces agents.human_id_verified, which nothing ever set: /me now derives
// humanIdVerified from the agent's wallet and its identity (docs/identity.md "Verified humans").
import { sql, type Kysely, type Migration } from 'kysely';

export const m0014_human_verifications: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE human_verifications (
      wallet_address text PRIMARY KEY CHECK (wallet_address = lower(wallet_address)),
      verifier text NOT NULL,
      reference text NULL,
      verified_at timestamptz NOT NULL,
      revoked_at timestamptz NULL
    )`.execute(db);
    await sql`ALTER TABLE agents DROP COLUMN human_id_verified`.execute(db);
  },
};
