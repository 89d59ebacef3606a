// Migration 0010: fill-pack purchases (docs/orderbook.md "Fill allowance"). A pack is paid by an ERC-20
// transfer of USDC from the agent's wallet to the operator; each transfer log pays for one pack once
// (the unique key), and the purchased fills are added to agents.paid_fills_remaining in the same transaction.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE TABLE fill_pack_purchases (
    id uuid PRIMARY KEY,
    agent_id uuid NOT NULL REFERENCES agents (id),
    chain_id int NOT NULL,
    tx_hash text NOT NULL CHECK (tx_hash = lower(tx_hash)),
    log_index int NOT NULL,
    block_number bigint NOT NULL,
    payer text NOT NULL CHECK (payer = lower(payer)),
    token text NOT NULL CHECK (token = lower(token)),
    amount numeric(78, 0) NOT NULL CHECK (amount > 0),
    fills int NOT NULL CHECK (fills > 0),
    usd_cents int NOT NULL CHECK (usd_cents > 0),
    created_at timestamptz NOT NULL,
    UNIQUE (chain_id, tx_hash, log_index)
  )`,
  sql`CREATE INDEX fill_pack_purchases_agent_idx ON fill_pack_purchases (agent_id, created_at)`,
];

export const m0010_fill_packs: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
};
