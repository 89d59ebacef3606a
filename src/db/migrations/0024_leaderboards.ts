// Migration 0024: leaderboards (issue 20; docs/leaderboard.md). The indexer and the order loop only append legs to
// leaderboard_legs, in the transaction that projects the trade or settles the fill; the updater folds pending legs,
// in order, into positions at average cost, per-day rows and per-period totals, keeping what each leg counted so a
// reorg can take it back. Boards read leaderboard_totals and leaderboard_roles by index, never the trades. Money is
// USD micro-dollars (6 decimals), signed; days are UTC days since 1970-01-01.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE TABLE leaderboard_legs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source text NOT NULL CHECK (source IN ('trade', 'fill')),
    role text NOT NULL CHECK (role IN ('trader', 'maker', 'taker')),
    chain_id int NOT NULL,
    -- A Trade log (source trade) or an order fill (source fill).
    tx_hash text NULL,
    log_index int NULL,
    block_number bigint NULL,
    fill_id bigint NULL,
    state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'folded', 'skipped', 'reverted')),
    -- What folding it counted (null while pending or skipped), kept so a reorg takes back exactly that.
    wallet text NULL,
    market text NULL,
    outcome smallint NULL,
    day int NULL,
    category text NULL,
    realized numeric(78, 0) NULL,
    volume numeric(78, 0) NULL,
    creator text NULL,
    creator_volume numeric(78, 0) NULL,
    shares_after numeric(78, 0) NULL,
    basis_after numeric(78, 0) NULL
  )`,
  sql`CREATE INDEX leaderboard_legs_pending_idx ON leaderboard_legs (id) WHERE state = 'pending'`,
  sql`CREATE INDEX leaderboard_legs_reverted_idx ON leaderboard_legs (id) WHERE state = 'reverted'`,
  sql`CREATE INDEX leaderboard_legs_block_idx ON leaderboard_legs (chain_id, block_number) WHERE source = 'trade'`,
  // The last folded leg of a position, which a reorg restores it to.
  sql`CREATE INDEX leaderboard_legs_position_idx ON leaderboard_legs (chain_id, market, wallet, outcome, id) WHERE source = 'trade' AND state = 'folded'`,
  sql`CREATE UNIQUE INDEX leaderboard_legs_trade_idx ON leaderboard_legs (chain_id, tx_hash, log_index) WHERE source = 'trade' AND state <> 'reverted'`,
  sql`CREATE UNIQUE INDEX leaderboard_legs_fill_idx ON leaderboard_legs (fill_id, role) WHERE source = 'fill'`,

  // Each wallet's position per outcome at average cost, in the market's collateral; marked: its unrealized P&L at the
  // last mark (value at the latest price − basis, USD micro), 0 once settled; settled: what its settlement realized.
  sql`CREATE TABLE leaderboard_positions (
    chain_id int NOT NULL,
    market text NOT NULL,
    wallet text NOT NULL,
    outcome smallint NOT NULL,
    category text NOT NULL,
    shares numeric(78, 0) NOT NULL CHECK (shares >= 0),
    basis numeric(78, 0) NOT NULL,
    marked numeric(78, 0) NOT NULL DEFAULT 0,
    settled numeric(78, 0) NULL,
    PRIMARY KEY (chain_id, market, wallet, outcome)
  )`,
  sql`CREATE INDEX leaderboard_positions_wallet_idx ON leaderboard_positions (wallet)`,

  // Markets whose prices moved since their positions were marked (dirty), and the resolution each was settled at.
  sql`CREATE TABLE leaderboard_markets (
    chain_id int NOT NULL,
    market text NOT NULL,
    dirty boolean NOT NULL DEFAULT true,
    settled_outcome smallint NULL,
    settled_day int NULL,
    PRIMARY KEY (chain_id, market)
  )`,
  sql`CREATE INDEX leaderboard_markets_dirty_idx ON leaderboard_markets (chain_id, market) WHERE dirty`,

  // Per wallet, UTC day and market category: realized P&L, volume and legs (the equity curve and the windows).
  sql`CREATE TABLE leaderboard_days (
    wallet text NOT NULL,
    day int NOT NULL,
    category text NOT NULL,
    realized numeric(78, 0) NOT NULL DEFAULT 0,
    volume numeric(78, 0) NOT NULL DEFAULT 0,
    trades int NOT NULL DEFAULT 0,
    PRIMARY KEY (wallet, day, category)
  )`,
  sql`CREATE INDEX leaderboard_days_day_idx ON leaderboard_days (day)`,
  // Volume the markets of each creator drew per UTC day (CREATOR_QUALITY).
  sql`CREATE TABLE leaderboard_creator_days (
    creator text NOT NULL,
    day int NOT NULL,
    volume numeric(78, 0) NOT NULL DEFAULT 0,
    trades int NOT NULL DEFAULT 0,
    PRIMARY KEY (creator, day)
  )`,

  // Trader boards: one row per wallet, period and category (ALL included), ranked by index. The period 'all' row also
  // keeps its equity curve's running state (last_day, closed_peak, closed_drawdown: src/core/leaderboard/curve.ts).
  sql`CREATE TABLE leaderboard_totals (
    wallet text NOT NULL,
    period text NOT NULL CHECK (period IN ('7d', '30d', 'all')),
    category text NOT NULL,
    realized numeric(78, 0) NOT NULL,
    unrealized numeric(78, 0) NOT NULL,
    pnl numeric(78, 0) NOT NULL,
    volume numeric(78, 0) NOT NULL,
    trades int NOT NULL,
    drawdown numeric(78, 0) NOT NULL,
    risk_adj numeric(78, 0) NOT NULL,
    last_day int NULL,
    closed_peak numeric(78, 0) NOT NULL DEFAULT 0,
    closed_drawdown numeric(78, 0) NOT NULL DEFAULT 0,
    PRIMARY KEY (wallet, period, category)
  )`,
  sql`CREATE INDEX leaderboard_totals_pnl_idx ON leaderboard_totals (category, period, pnl DESC, wallet)`,
  sql`CREATE INDEX leaderboard_totals_volume_idx ON leaderboard_totals (category, period, volume DESC, wallet)`,
  sql`CREATE INDEX leaderboard_totals_risk_idx ON leaderboard_totals (category, period, risk_adj DESC, wallet)`,

  // Creator and voter boards: one row per wallet and period, points and the stats they come from.
  sql`CREATE TABLE leaderboard_roles (
    role text NOT NULL CHECK (role IN ('creator', 'voter')),
    period text NOT NULL CHECK (period IN ('7d', '30d', 'all')),
    wallet text NOT NULL,
    value numeric(78, 0) NOT NULL,
    stats jsonb NOT NULL,
    PRIMARY KEY (role, period, wallet)
  )`,
  sql`CREATE INDEX leaderboard_roles_rank_idx ON leaderboard_roles (role, period, value DESC, wallet)`,

  // Trades and fills projected before this migration: pending legs, folded by the updater at its first pass.
  sql`INSERT INTO leaderboard_legs (source, role, chain_id, tx_hash, log_index, block_number)
    SELECT 'trade', 'trader', chain_id, tx_hash, log_index, block_number FROM market_trades ORDER BY chain_id, block_number, log_index`,
  sql`INSERT INTO leaderboard_legs (source, role, chain_id, fill_id)
    SELECT 'fill', r.role, m.chain_id, f.id
    FROM order_fills f JOIN markets m ON m.address = f.market AND m.ledger_market_id = f.market_id
    CROSS JOIN (VALUES ('maker'), ('taker')) AS r (role)
    ORDER BY f.id, r.role`,
];

export const m0024_leaderboards: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
};
