// Migration 0029: a change to the markets or their trades NOTIFYs svc_read_models at its commit (issue 22; docs/markets.md
// "Listing cache"), so that every process forgets the list pages it rendered from them, whoever wrote. Per statement:
// one notification however many rows it touched.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0029_read_model_changes: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE FUNCTION svc_read_models_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('svc_read_models', TG_TABLE_NAME);
        RETURN NULL;
      END
    $$`.execute(db);
    for (const table of ['markets', 'market_trade_events']) {
      await sql`CREATE TRIGGER ${sql.raw(`${table}_changed`)} AFTER INSERT OR UPDATE OR DELETE ON ${sql.table(table)}
        FOR EACH STATEMENT EXECUTE FUNCTION svc_read_models_changed()`.execute(db);
    }
  },
};
