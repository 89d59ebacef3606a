// Migration 0036: what a fold changed of the wallets' totals, waiting for the totals step (issue 22). A fold rewrote
// the board rows of every wallet it touched in its own transaction: under a steady flow of fills (the order bench, 64
// traders) that was 15-26 ms of every fold's 30-60 ms, once a second, with the embedded database's one connection held
// throughout. Now a fold adds its day changes and its positions' mark changes here, summed per wallet, category and
// day (day -1: a change of unrealized P&L), in its own transaction, and the updater's totals step folds them into
// leaderboard_totals in short transactions of a few wallets each, every few seconds (docs/leaderboard.md
// "Maintenance"). Whatever refreshes a wallet's totals takes its rows from here first, so nothing counts twice.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0036_leaderboard_pending: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE leaderboard_pending (
      wallet text NOT NULL,
      category text NOT NULL,
      day int NOT NULL,
      realized numeric(78, 0) NOT NULL DEFAULT 0,
      volume numeric(78, 0) NOT NULL DEFAULT 0,
      trades int NOT NULL DEFAULT 0,
      unrealized numeric(78, 0) NOT NULL DEFAULT 0,
      PRIMARY KEY (wallet, category, day)
    )`.execute(db);
  },
};
