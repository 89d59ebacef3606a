// Migration 0041: an owner's orders by their seq (issue 22; docs/orderbook.md, session 26). GET /orderbook/orders
// pages an agent's orders newest first by seq (services/orderbook/orders/list-orders.ts); the index it had, (owner,
// status), found them and then sorted all of them for every page. (owner, seq) reads a page in order. The seq's own
// unique index goes: every seq is taken from the column's identity sequence (src/db/sequences.ts) and written once, so
// the index only cost an entry for every order written and for every change of its status (~1.4 an order).
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`DROP INDEX orders_owner_idx`,
  sql`CREATE INDEX orders_owner_idx ON orders (owner, seq)`,
  sql`ALTER TABLE orders DROP CONSTRAINT orders_seq_key`,
];

export const m0041_orders_owner_seq_index: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
};
