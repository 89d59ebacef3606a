// Migration 0007: automated markets — negotiations (the create loop), the market projection the indexer and
// commit-deploy write, trades, outcome-token transfers and positions, the indexer's cursor and block-hash
// window (reorg detection), and human comments. Amounts are numeric(78,0) base units (uint256 fits); prices
// are 1e18-scaled decimal strings in jsonb arrays. Every projected row carries its block number, so a reorg
// rolls back by deleting rows above the common ancestor and recomputing the aggregates of the markets touched.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE TABLE negotiations (
    id uuid PRIMARY KEY,
    agent_id uuid NOT NULL REFERENCES agents (id),
    creator text NOT NULL CHECK (creator = lower(creator)),
    chain_id int NOT NULL,
    status text NOT NULL CHECK (status IN ('proposed', 'countered', 'accepted', 'rejected', 'deployed')),
    external_id text NULL,
    proposed_terms jsonb NOT NULL,
    terms jsonb NOT NULL,
    counter jsonb NULL,
    question_hash text NOT NULL,
    market_address text NULL,
    deploy_tx_hash text NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX negotiations_agent_idx ON negotiations (agent_id, created_at)`,
  sql`CREATE UNIQUE INDEX negotiations_external_id_idx ON negotiations (creator, external_id) WHERE external_id IS NOT NULL AND status <> 'rejected'`,
  sql`CREATE INDEX negotiations_question_idx ON negotiations (creator, question_hash)`,

  sql`CREATE TABLE markets (
    -- Listing order for sort=new and its keyset cursor: assigned once, when the market is first registered.
    id bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    chain_id int NOT NULL,
    address text NOT NULL CHECK (address = lower(address)),
    pricing_model text NOT NULL CHECK (pricing_model IN ('automated', 'ORDERBOOK')),
    factory text NOT NULL,
    creator text NOT NULL,
    collateral_token text NOT NULL,
    collateral_symbol text NOT NULL,
    outcome_count smallint NOT NULL CHECK (outcome_count IN (2, 3)),
    question text NULL,
    description text NULL,
    category text NOT NULL,
    outcomes jsonb NOT NULL,
    resolution_source text NULL,
    external_id text NULL,
    question_hash text NOT NULL,
    negotiation_id uuid NULL,
    geo_place text NULL,
    geo_country text NULL,
    close_time timestamptz NOT NULL,
    resolve_by timestamptz NOT NULL,
    resolution_window_seconds int NOT NULL,
    liquidity numeric(78, 0) NOT NULL,
    bond numeric(78, 0) NOT NULL,
    subsidy numeric(78, 0) NOT NULL,
    protocol_fee_bps int NOT NULL,
    creator_fee_bps int NOT NULL,
    state text NOT NULL CHECK (state IN ('open', 'closed', 'creator_proposal', 'challenge', 'human_voting', 'council_review', 'resolved', 'void')),
    controls jsonb NOT NULL,
    cancel_reason text NULL,
    prices jsonb NOT NULL,
    outstanding jsonb NOT NULL,
    volume numeric(78, 0) NOT NULL DEFAULT 0,
    trade_count int NOT NULL DEFAULT 0,
    creator_fees numeric(78, 0) NOT NULL DEFAULT 0,
    last_trade_at timestamptz NULL,
    created_block bigint NOT NULL,
    created_block_hash text NOT NULL,
    created_tx text NOT NULL,
    created_at timestamptz NOT NULL,
    resolution_due_sent_at timestamptz NULL,
    -- False until the indexer has seen the creation log (commit-deploy registers from the receipt first).
    confirmed boolean NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL,
    -- isListed(controls) with registered metadata, stored so listings can use partial indexes.
    listed boolean GENERATED ALWAYS AS (question IS NOT NULL AND controls->>'policy' = 'active' AND controls->>'discovery' IN ('listed', 'graduated')) STORED,
    PRIMARY KEY (chain_id, address)
  )`,
  sql`CREATE INDEX markets_state_idx ON markets (state, close_time)`,
  sql`CREATE INDEX markets_creator_idx ON markets (creator, state)`,
  // The scheduler's resolution_due scan, every few seconds: only markets not yet announced.
  sql`CREATE INDEX markets_resolution_due_idx ON markets (resolve_by) WHERE resolution_due_sent_at IS NULL AND state IN ('open', 'closed')`,
  // Listings read 20 rows of the newest, per category or closing soonest, never the whole table.
  sql`CREATE INDEX markets_listed_id_idx ON markets (id DESC) WHERE listed`,
  sql`CREATE INDEX markets_listed_category_idx ON markets (lower(category), id DESC) WHERE listed`,
  sql`CREATE INDEX markets_listed_close_idx ON markets (close_time) WHERE listed AND state = 'open'`,
  sql`CREATE UNIQUE INDEX markets_external_id_idx ON markets (chain_id, creator, external_id) WHERE external_id IS NOT NULL`,

  sql`CREATE TABLE market_trades (
    chain_id int NOT NULL,
    tx_hash text NOT NULL,
    log_index int NOT NULL,
    block_number bigint NOT NULL,
    block_hash text NOT NULL,
    block_time timestamptz NOT NULL,
    market text NOT NULL,
    trader text NOT NULL,
    recipient text NOT NULL,
    outcome smallint NOT NULL,
    is_buy boolean NOT NULL,
    shares numeric(78, 0) NOT NULL,
    cost numeric(78, 0) NOT NULL,
    protocol_fee numeric(78, 0) NOT NULL,
    creator_fee numeric(78, 0) NOT NULL,
    prices_after jsonb NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, log_index)
  )`,
  sql`CREATE INDEX market_trades_market_idx ON market_trades (market, block_number DESC, log_index DESC)`,
  sql`CREATE INDEX market_trades_time_idx ON market_trades (block_time)`,
  sql`CREATE INDEX market_trades_block_idx ON market_trades (chain_id, block_number)`,

  sql`CREATE TABLE outcome_transfers (
    chain_id int NOT NULL,
    tx_hash text NOT NULL,
    log_index int NOT NULL,
    batch_index int NOT NULL,
    block_number bigint NOT NULL,
    market text NOT NULL,
    outcome smallint NOT NULL,
    from_address text NOT NULL,
    to_address text NOT NULL,
    amount numeric(78, 0) NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, log_index, batch_index)
  )`,
  sql`CREATE INDEX outcome_transfers_market_idx ON outcome_transfers (market)`,
  sql`CREATE INDEX outcome_transfers_block_idx ON outcome_transfers (chain_id, block_number)`,

  sql`CREATE TABLE market_positions (
    chain_id int NOT NULL,
    market text NOT NULL,
    holder text NOT NULL,
    outcome smallint NOT NULL,
    shares numeric(78, 0) NOT NULL CHECK (shares >= 0),
    PRIMARY KEY (chain_id, market, holder, outcome)
  )`,
  sql`CREATE INDEX market_positions_holder_idx ON market_positions (holder)`,

  sql`CREATE TABLE indexer_cursors (
    chain_id int PRIMARY KEY,
    block_number bigint NOT NULL,
    block_hash text NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  // The hashes of the most recent indexed blocks: a reorg shows as a stored hash the chain no longer has.
  sql`CREATE TABLE indexed_blocks (
    chain_id int NOT NULL,
    block_number bigint NOT NULL,
    block_hash text NOT NULL,
    block_time timestamptz NOT NULL,
    PRIMARY KEY (chain_id, block_number)
  )`,

  sql`CREATE TABLE market_comments (
    id uuid PRIMARY KEY,
    chain_id int NOT NULL,
    market text NOT NULL,
    author_wallet text NOT NULL CHECK (author_wallet = lower(author_wallet)),
    body text NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
    created_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX market_comments_market_idx ON market_comments (chain_id, market, created_at DESC, id DESC)`,
];

export const m0007_markets: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
    // Trigram search when the server has pg_trgm (PGlite loads it; PostgreSQL ships it in contrib). Without
    // it, search falls back to case-insensitive substring matching (docs/markets.md).
    const { rows } = await sql<{ available: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') AS available`.execute(db);
    if (rows[0]?.available) {
      await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
      await sql`CREATE INDEX markets_question_trgm_idx ON markets USING gin (lower(question) gin_trgm_ops) WHERE listed`.execute(db);
    }
  },
};
