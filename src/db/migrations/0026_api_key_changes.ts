// Migration 0026: any change to a stored API key NOTIFYs svc_api_keys at its commit (issue 20; docs/identity.md
// "Key cache"), so that every process forgets the keys it cached, whoever made the change: this process, another
// API process, or `svc keys revoke` run beside them. Per statement: one notification however many keys it touched.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0026_api_key_changes: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE FUNCTION svc_api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('svc_api_keys', '');
        RETURN NULL;
      END
    $$`.execute(db);
    await sql`CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION svc_api_keys_changed()`.execute(db);
  },
};
