// Migration 0032: the 24-hour volume triggers of migration 0031 run once per statement instead of once per row (issue
// 22: a batch of placements writes its fills in one statement). Each statement takes the window row's share lock once
// and adds its trades to market_volumes grouped by market, in one upsert, from its transition table; what is added,
// and when, is unchanged (trades after the window's boundary; a deleted trade taken back).
import { sql, type Kysely, type Migration } from 'kysely';

/** A fill's cost in collateral base units, as the market_trade_events view computes it (migration 0011). */
const FILL_COST = (f: string) => `${f}.shares * (CASE WHEN ${f}.kind IN (1, 2) THEN 10000 - ${f}.price_bps ELSE ${f}.price_bps END) * 100`;

/** The upsert of `rows` (a transition table of market_trades or order_fills, as `select` reads it) into market_volumes. */
const addVolumes = (select: string) => `
  INSERT INTO market_volumes (chain_id, market, volume)
    SELECT chain_id, market, sum(cost) FROM (${select}) AS t WHERE chain_id IS NOT NULL AND at > boundary GROUP BY chain_id, market
    ON CONFLICT (chain_id, market) DO UPDATE SET volume = market_volumes.volume + EXCLUDED.volume`;

const tradesOf = (rows: string, sign: string) => `SELECT r.chain_id, r.market, r.block_time AS at, ${sign} * r.cost AS cost FROM ${rows} r`;
const fillsOf = (rows: string, sign: string) =>
  `SELECT (SELECT m.chain_id FROM markets m WHERE m.address = f.market AND m.ledger_market_id = f.market_id) AS chain_id, f.market, f.created_at AS at, ${sign} * (${FILL_COST('f')}) AS cost FROM ${rows} f`;

export const m0032_statement_volume_triggers: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TRIGGER market_trades_volume ON market_trades`.execute(db);
    await sql`DROP TRIGGER order_fills_volume ON order_fills`.execute(db);
    await sql`DROP FUNCTION svc_market_trades_volume()`.execute(db);
    await sql`DROP FUNCTION svc_order_fills_volume()`.execute(db);
    await sql`DROP FUNCTION svc_market_volume_add(int, text, timestamptz, numeric)`.execute(db);
    for (const [table, of] of [
      ['market_trades', tradesOf],
      ['order_fills', fillsOf],
    ] as const) {
      await sql`CREATE FUNCTION ${sql.raw(`svc_${table}_volume()`)} RETURNS trigger LANGUAGE plpgsql AS ${sql.lit(`
        DECLARE boundary timestamptz;
        BEGIN
          SELECT since INTO boundary FROM market_volume_window WHERE id = 1 FOR SHARE;
          IF TG_OP = 'INSERT' THEN ${addVolumes(of('new_rows', '1'))};
          ELSE ${addVolumes(of('old_rows', '-1'))};
          END IF;
          RETURN NULL;
        END`)}`.execute(db);
      await sql`CREATE TRIGGER ${sql.raw(`${table}_volume_insert`)} AFTER INSERT ON ${sql.table(table)} REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION ${sql.raw(`svc_${table}_volume()`)}`.execute(db);
      await sql`CREATE TRIGGER ${sql.raw(`${table}_volume_delete`)} AFTER DELETE ON ${sql.table(table)} REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION ${sql.raw(`svc_${table}_volume()`)}`.execute(db);
    }
  },
};
