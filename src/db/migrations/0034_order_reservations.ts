// Migration 0034: what each owner's resting orders reserve, kept per ledger asset (issue 22). A batch of placements read
// its owners' available balances by summing the reservations of all their resting orders, in every market: ~8 µs a
// resting order, 1.6 ms a batch with ~1,000 orders resting in the order bench, and growing with every order left on a
// book (an agent quoting a few hundred prices made every batch it was in pay for all of them). Now the placements,
// fills and cancels that change an order's reservation add the difference to its owner's row here, in the transaction
// that changes the order (docs/orderbook.md "Reservations"), and a batch reads one row per owner and asset.
//
// The asset is the ledger's: collateral (0) for a buy, an outcome's shares (market id × 256 + outcome) for a sell.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0034_order_reservations: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE order_reservations (
      owner text NOT NULL,
      asset_id numeric(78, 0) NOT NULL,
      reserved numeric(78, 0) NOT NULL,
      PRIMARY KEY (owner, asset_id)
    )`.execute(db);
    await sql`INSERT INTO order_reservations (owner, asset_id, reserved)
      SELECT owner, CASE WHEN action = 'buy' THEN 0 ELSE market_id::numeric * 256 + outcome END, sum(reserved)
      FROM orders WHERE status = 'resting' GROUP BY 1, 2`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE order_reservations`.execute(db);
  },
};
