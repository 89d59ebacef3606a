// Migration 0011: market reads of order-book markets (docs/orderbook.md "Market reads"). Volume and the price
// chart read one view over both kinds of trade — LMSR trades projected from the chain and order-book fills —
// ordered within a market by (o1, o2): (block, log index) for a trade, (fill id, 0) for a fill.
// A fill's cost is what the taker paid or received for its shares, fees excluded: shares × the taker's price
// × 100 base units, the taker's price being the maker's for TRANSFER (0) and TAKER_SELLS (3) and
// 10 000 − the maker's for MINT (1) and MERGE (2) (core/orderbook/engine.ts fillCostOf). Its prices are those
// after the fill: outcome 0 at the fill's price on the outcome-0 axis, outcome 1 the complement, 1e18-scaled.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE INDEX order_fills_market_time_idx ON order_fills (market, created_at)`,
  // The holders of an order-book market's outcome assets, largest first.
  sql`CREATE INDEX ledger_balances_asset_idx ON ledger_balances (asset_id, balance DESC)`,
  sql`CREATE VIEW market_trade_events AS
    SELECT chain_id, market, block_time AS at, block_number AS o1, log_index::bigint AS o2, cost, prices_after AS prices
    FROM market_trades
    UNION ALL
    SELECT m.chain_id, f.market, f.created_at AS at, f.id AS o1, 0::bigint AS o2,
      f.shares * (CASE WHEN f.kind IN (1, 2) THEN 10000 - f.price_bps ELSE f.price_bps END) * 100 AS cost,
      jsonb_build_array(
        ((CASE WHEN f.side = 0 THEN f.price_bps ELSE 10000 - f.price_bps END)::numeric * 100000000000000)::text,
        ((CASE WHEN f.side = 0 THEN 10000 - f.price_bps ELSE f.price_bps END)::numeric * 100000000000000)::text
      ) AS prices
    FROM order_fills f JOIN markets m ON m.address = f.market AND m.ledger_market_id = f.market_id`,
];

export const m0011_orderbook_reads: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
};
