// Migration 0027: PM purchases (issue 21; docs/economy.md). A card purchase is one row per order, written before the
// provider's checkout session is asked for (state creating, so the cap counts it) and given the session's id after;
// its delivery is PmSale.deliver(keccak256(session id), …), which the contract accepts once. A relay purchase is one
// row per mined buyWithPermit the relayer sent for a buyer.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0027_economy: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE card_purchases (
      order_id uuid PRIMARY KEY,
      session_id text NULL UNIQUE,
      provider text NOT NULL,
      chain_id integer NOT NULL,
      wallet_address text NOT NULL,
      usd integer NOT NULL CHECK (usd > 0),
      pm_amount numeric(78, 0) NOT NULL CHECK (pm_amount > 0),
      state text NOT NULL CHECK (state IN ('creating', 'open', 'paid', 'delivered', 'expired', 'failed')),
      checkout_url text NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      paid_at timestamptz NULL,
      delivered_at timestamptz NULL,
      delivery_attempt integer NOT NULL DEFAULT 0,
      delivery_tx text NULL,
      last_error text NULL
    )`.execute(db);
    await sql`CREATE INDEX card_purchases_wallet ON card_purchases (wallet_address, created_at)`.execute(db);
    await sql`CREATE INDEX card_purchases_to_deliver ON card_purchases (paid_at) WHERE state = 'paid'`.execute(db);
    await sql`CREATE TABLE relay_purchases (
      tx_hash text PRIMARY KEY,
      operation_id text NOT NULL UNIQUE,
      chain_id integer NOT NULL,
      buyer text NOT NULL,
      payment_amount numeric(78, 0) NOT NULL,
      min_pm_out numeric(78, 0) NOT NULL,
      pm_out numeric(78, 0) NOT NULL,
      block_number bigint NOT NULL,
      created_at timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX relay_purchases_buyer ON relay_purchases (buyer, created_at)`.execute(db);
  },
};
