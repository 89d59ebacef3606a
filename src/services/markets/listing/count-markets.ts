// Listed markets per lifecycle state: /markets/counts (docs/markets.md "Reads").
import { sql, type Kysely } from 'kysely';
import { MARKET_STATES, type MarketState } from '../../../core/markets/states.ts';
import { toCount, type DB } from '../../../db/index.ts';
import { hasTrigram, listingCondition, type ListingFilter } from './shared.ts';

export type StateCounts = Record<MarketState, number>;

/** Listed markets per lifecycle state under `filter` (its `state` is ignored), and their total. */
export async function countMarkets(db: Kysely<DB>, filter: ListingFilter, now: Date): Promise<{ counts: StateCounts; total: number }> {
  const { state: _ignored, ...rest } = filter;
  const found = await db
    .selectFrom('markets as m')
    .select(['m.state', sql<string>`count(*)`.as('n')])
    .where(listingCondition(rest, now, await hasTrigram(db)))
    .groupBy('m.state')
    .execute();
  const counts = Object.fromEntries(MARKET_STATES.map((s) => [s, 0])) as StateCounts;
  for (const r of found) counts[r.state] = toCount(r.n);
  return { counts, total: Object.values(counts).reduce((a, b) => a + b, 0) };
}
