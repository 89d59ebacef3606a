// Migration 0031: the rolling 24-hour volume of every market, maintained as trades are written instead of aggregated
// per request (issue 22; docs/markets.md "24-hour volume"). market_volumes.volume holds Σ cost of the market's trades
// (LMSR trades and order-book fills, as the market_trade_events view prices them) whose time is after
// market_volume_window.since; a trigger adds each trade written after that boundary and takes back a deleted one (a
// reorganisation), under a share lock of the window row; the expiry pass moves the boundary to now − 24 h and takes
// the trades it passed off the volumes, under the row's update lock. A read at time T corrects the aggregate by the
// trades between the boundary and T − 24 h (a few seconds of trades), so the answer is exact at T.
import { sql, type Kysely, type Migration } from 'kysely';

/** A fill's cost in collateral base units, as the market_trade_events view computes it (migration 0011). */
const FILL_COST = (f: string) => `${f}.shares * (CASE WHEN ${f}.kind IN (1, 2) THEN 10000 - ${f}.price_bps ELSE ${f}.price_bps END) * 100`;

export const m0031_market_volumes: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE market_volumes (
      chain_id int NOT NULL,
      market text NOT NULL,
      volume numeric(78, 0) NOT NULL DEFAULT 0,
      PRIMARY KEY (chain_id, market)
    )`.execute(db);
    await sql`CREATE TABLE market_volume_window (
      id int PRIMARY KEY CHECK (id = 1),
      since timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX order_fills_time_idx ON order_fills (created_at)`.execute(db);
    await sql`INSERT INTO market_volume_window (id, since) VALUES (1, now() - interval '24 hours')`.execute(db);
    await sql`INSERT INTO market_volumes (chain_id, market, volume)
      SELECT chain_id, market, sum(cost) FROM market_trade_events
       WHERE at > (SELECT since FROM market_volume_window) GROUP BY chain_id, market`.execute(db);
    await sql`CREATE FUNCTION svc_market_volume_add(p_chain int, p_market text, p_at timestamptz, p_cost numeric) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF p_chain IS NULL OR p_at <= (SELECT since FROM market_volume_window WHERE id = 1 FOR SHARE) THEN RETURN; END IF;
        INSERT INTO market_volumes (chain_id, market, volume) VALUES (p_chain, p_market, p_cost)
          ON CONFLICT (chain_id, market) DO UPDATE SET volume = market_volumes.volume + EXCLUDED.volume;
      END
    $$`.execute(db);
    await sql`CREATE FUNCTION svc_market_trades_volume() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN PERFORM svc_market_volume_add(NEW.chain_id, NEW.market, NEW.block_time, NEW.cost);
        ELSE PERFORM svc_market_volume_add(OLD.chain_id, OLD.market, OLD.block_time, -OLD.cost);
        END IF;
        RETURN NULL;
      END
    $$`.execute(db);
    await sql`CREATE FUNCTION svc_order_fills_volume() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE f order_fills;
      BEGIN
        IF TG_OP = 'INSERT' THEN f := NEW; ELSE f := OLD; END IF;
        PERFORM svc_market_volume_add(
          (SELECT m.chain_id FROM markets m WHERE m.address = f.market AND m.ledger_market_id = f.market_id),
          f.market, f.created_at, (CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END) * (${sql.raw(FILL_COST('f'))}));
        RETURN NULL;
      END
    $$`.execute(db);
    await sql`CREATE TRIGGER market_trades_volume AFTER INSERT OR DELETE ON market_trades FOR EACH ROW EXECUTE FUNCTION svc_market_trades_volume()`.execute(db);
    await sql`CREATE TRIGGER order_fills_volume AFTER INSERT OR DELETE ON order_fills FOR EACH ROW EXECUTE FUNCTION svc_order_fills_volume()`.execute(db);
  },
};
