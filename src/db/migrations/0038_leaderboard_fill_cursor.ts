// Migration 0038: the leaderboards read order-book fills after a cursor instead of a maker and a taker leg per fill in
// leaderboard_legs (issue 22). A placement that filled wrote two leg rows (seven indexes) in its transaction, and the
// fold read them back and deleted them; fills are final and every fill's id is taken under the ledger lock, which its
// transaction holds to its commit, so fills commit in id order and "the fills after id N" never misses a later commit
// (the reputation fold reads them by ledger_seq for the same reason). The cursor starts after the newest fill: the
// fills before it were folded, or have their pending legs, which the fold takes first (docs/leaderboard.md "The inbox").
import { sql, type Kysely, type Migration } from 'kysely';

export const m0038_leaderboard_fill_cursor: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE leaderboard_fill_cursor (
      id smallint PRIMARY KEY CHECK (id = 1),
      fill_id bigint NOT NULL
    )`.execute(db);
    await sql`INSERT INTO leaderboard_fill_cursor (id, fill_id) SELECT 1, coalesce(max(id), 0) FROM order_fills`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    // The fills after the cursor get their legs back, as the order loop wrote them before.
    await sql`INSERT INTO leaderboard_legs (source, role, chain_id, fill_id)
      SELECT 'fill', r.role, m.chain_id, f.id
      FROM order_fills f
      JOIN markets m ON m.address = f.market AND m.ledger_market_id = f.market_id
      CROSS JOIN (VALUES ('maker'), ('taker')) AS r (role)
      WHERE f.id > (SELECT fill_id FROM leaderboard_fill_cursor WHERE id = 1)
      ORDER BY f.id, r.role`.execute(db);
    await sql`DROP TABLE leaderboard_fill_cursor`.execute(db);
  },
};
