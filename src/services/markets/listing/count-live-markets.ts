// A creator's live markets, listed or not: the create loop's MAX_LIVE_MARKETS_PER_CREATOR rule (docs/markets.md).
import { sql, type Kysely } from 'kysely';
import type { MarketState } from '../../../core/markets/states.ts';
import { toCount, type DB } from '../../../db/index.ts';

/** Live states for the per-creator cap: created and not yet past the creator's turn (MAX_LIVE_MARKETS_PER_CREATOR). */
export const LIVE_STATES = ['open', 'closed'] as const satisfies readonly MarketState[];

/**
 * How many live (open or closed) markets `creator` has on `chainId`, listed or not, leaving out
 * `excludeMarket` (the market being replaced or re-checked). The create loop compares this with
 * MAX_LIVE_MARKETS_PER_CREATOR.
 */
export async function countLiveMarkets(db: Kysely<DB>, p: { chainId: number; creator: string; excludeMarket?: string }): Promise<number> {
  let qb = db
    .selectFrom('markets')
    .select(sql<string>`count(*)`.as('n'))
    .where('chain_id', '=', p.chainId)
    .where('creator', '=', p.creator.toLowerCase())
    .where('state', 'in', [...LIVE_STATES]);
  if (p.excludeMarket !== undefined) qb = qb.where('address', '<>', p.excludeMarket.toLowerCase());
  const row = await qb.executeTakeFirstOrThrow();
  return toCount(row.n);
}
