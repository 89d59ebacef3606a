// What the leaderboard operations run on: the database, the clock (today's UTC day), the log, and the collateral
// tokens whose decimals turn amounts into USD micro-dollars (src/core/leaderboard/money.ts).
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { DB } from '../../db/schema.ts';

export interface LeaderboardDeps {
  db: Kysely<DB>;
  clock: Clock;
  log: Logger;
  /** The chain the order books' fills are on (the deployment's). */
  chainId: number;
  /** The served collateral tokens (symbol, address, decimals); order books' play money is 6 decimals. */
  collateral: readonly { symbol: string; token: string; decimals: number }[];
}
