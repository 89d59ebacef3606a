// Migration 0009: play-money order books (docs/orderbook.md). Orders keep what they reserve until they
// fill or are cancelled; every fill is one ledger match operation (ledger_seq); each agent's order events
// carry their own gap-free sequence, which POST /orderbook/events pages through.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  // The uint64 id an ORDERBOOK market has on its factory and in the ledger's asset ids.
  sql`ALTER TABLE markets ADD COLUMN ledger_market_id bigint NULL`,
  sql`CREATE UNIQUE INDEX markets_ledger_market_id_idx ON markets (chain_id, ledger_market_id) WHERE ledger_market_id IS NOT NULL`,
  sql`CREATE TABLE orders (
    id uuid PRIMARY KEY,
    -- Time priority in the book: assigned once, increasing.
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    agent_id uuid NOT NULL REFERENCES agents (id),
    owner text NOT NULL CHECK (owner = lower(owner)),
    chain_id int NOT NULL,
    market text NOT NULL,
    market_id bigint NOT NULL,
    outcome smallint NOT NULL CHECK (outcome IN (0, 1)),
    action text NOT NULL CHECK (action IN ('buy', 'sell')),
    price_bps int NOT NULL CHECK (price_bps BETWEEN 1 AND 9999),
    shares numeric(39, 0) NOT NULL CHECK (shares > 0),
    remaining numeric(39, 0) NOT NULL CHECK (remaining >= 0),
    filled numeric(39, 0) NOT NULL DEFAULT 0,
    tif text NOT NULL CHECK (tif IN ('GTC', 'IOC', 'FOK')),
    post_only boolean NOT NULL,
    status text NOT NULL CHECK (status IN ('resting', 'filled', 'cancelled', 'rejected')),
    reason text NULL,
    -- What the resting remainder still reserves: collateral base units (buys) or shares (sells).
    reserved numeric(78, 0) NOT NULL DEFAULT 0,
    cancel_requested_at timestamptz NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX orders_resting_idx ON orders (market_id, seq) WHERE status = 'resting'`,
  sql`CREATE INDEX orders_owner_idx ON orders (owner, status)`,
  sql`CREATE TABLE order_fills (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    market_id bigint NOT NULL,
    market text NOT NULL,
    maker_order uuid NOT NULL REFERENCES orders (id),
    taker_order uuid NOT NULL REFERENCES orders (id),
    maker text NOT NULL,
    taker text NOT NULL,
    side smallint NOT NULL,
    kind smallint NOT NULL,
    price_bps int NOT NULL,
    shares numeric(39, 0) NOT NULL,
    taker_fee numeric(39, 0) NOT NULL,
    ledger_seq bigint NOT NULL REFERENCES ledger_operations (seq),
    created_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX order_fills_maker_idx ON order_fills (maker_order)`,
  sql`CREATE INDEX order_fills_taker_idx ON order_fills (taker_order)`,
  sql`CREATE INDEX order_fills_market_idx ON order_fills (market_id, id)`,
  sql`CREATE TABLE order_events (
    agent_id uuid NOT NULL REFERENCES agents (id),
    seq bigint NOT NULL,
    order_id uuid NOT NULL REFERENCES orders (id),
    type text NOT NULL,
    fill_id bigint NULL REFERENCES order_fills (id),
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (agent_id, seq)
  )`,
  sql`CREATE TABLE order_event_cursors (
    agent_id uuid PRIMARY KEY REFERENCES agents (id),
    last_seq bigint NOT NULL
  )`,
];

export const m0009_orderbook: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
};
