// Migration 0030: several processes on one PostgreSQL (issue 22; docs/operations.md). The processes of a deployment
// (cluster_members: each row is alive while its process holds its member lock, so nothing here is a heartbeat) and the
// owner of each shard of the order books (order_shards: a placement's transaction reads its shard's row FOR SHARE
// and refuses unless this process owns it; a takeover's UPDATE waits for those transactions, so two processes never
// write one book). A change to either NOTIFYs svc_cluster at its commit. An Idempotency-Key claim names the member that
// holds it, so a retry need not wait out the lease of a claim whose process died. And the listing cache's trade triggers
// move from the market_trade_events view (where they never fired) to the tables it reads.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0030_cluster: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('cluster_members')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('lock_key', 'integer', (c) => c.notNull().unique())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('order_shards')
      .addColumn('shard', 'integer', (c) => c.primaryKey())
      .addColumn('owner', 'text')
      .addColumn('epoch', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
    // The member whose request holds an in-progress claim: a retry takes the claim over at once when that process is dead.
    await db.schema.alterTable('idempotency_records').addColumn('holder', 'text').execute();
    await sql`CREATE FUNCTION svc_cluster_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('svc_cluster', TG_TABLE_NAME);
        RETURN NULL;
      END
    $$`.execute(db);
    // Migration 0029 put its trigger on market_trade_events, a view, where it never fires (trades are written to the
    // tables under it): the trades and the fills NOTIFY svc_read_models themselves.
    await sql`DROP TRIGGER market_trade_events_changed ON market_trade_events`.execute(db);
    for (const table of ['market_trades', 'order_fills']) {
      await sql`CREATE TRIGGER ${sql.raw(`${table}_changed`)} AFTER INSERT OR UPDATE OR DELETE ON ${sql.table(table)}
        FOR EACH STATEMENT EXECUTE FUNCTION svc_read_models_changed()`.execute(db);
    }
    for (const table of ['cluster_members', 'order_shards']) {
      await sql`CREATE TRIGGER ${sql.raw(`${table}_changed`)} AFTER INSERT OR UPDATE OR DELETE ON ${sql.table(table)}
        FOR EACH STATEMENT EXECUTE FUNCTION svc_cluster_changed()`.execute(db);
    }
  },
};
