/** GET /markets/{address}/holders: who holds a market's outcome shares. */
import { getAddress } from 'viem';
import { sql, type Kysely } from 'kysely';
import { toCount, type DB } from '../../../db/index.ts';
import type { MarketHoldersT } from '../../../wire/market-reads.ts';
import { openInterestOf, type MarketRow } from '../records.ts';

/** Top holders shown per outcome. */
export const TOP_HOLDERS = 20;

/** Who holds the market's outcome shares: the largest holders per outcome, holder counts and open interest. */
export async function marketHolders(db: Kysely<DB>, m: MarketRow): Promise<MarketHoldersT> {
  const top = await sql<{ outcome: number; holder: string; shares: string }>`
    SELECT outcome, holder, shares::text AS shares FROM (
      SELECT outcome, holder, shares, row_number() OVER (PARTITION BY outcome ORDER BY shares DESC, holder) AS rank
      FROM market_positions WHERE chain_id = ${m.chain_id} AND market = ${m.address} AND shares > 0
    ) p
    WHERE rank <= ${TOP_HOLDERS}
    ORDER BY outcome, rank`.execute(db);
  const perOutcome = await db
    .selectFrom('market_positions')
    .select(['outcome', sql<string>`count(*)`.as('n')])
    .where('chain_id', '=', m.chain_id)
    .where('market', '=', m.address)
    .where('shares', '>', '0')
    .groupBy('outcome')
    .execute();
  const distinct = await db
    .selectFrom('market_positions')
    .select(sql<string>`count(DISTINCT holder)`.as('n'))
    .where('chain_id', '=', m.chain_id)
    .where('market', '=', m.address)
    .where('shares', '>', '0')
    .executeTakeFirstOrThrow();
  return {
    market: getAddress(m.address),
    chainId: m.chain_id,
    holders: Array.from({ length: m.outcome_count }, (_, i) => ({
      index: i,
      label: m.outcomes[i] ?? `Outcome ${i + 1}`,
      outstandingShares: m.outstanding[i] ?? '0',
      holderCount: toCount(perOutcome.find((r) => Number(r.outcome) === i)?.n ?? 0),
      top: top.rows.filter((r) => Number(r.outcome) === i).map((r) => ({ address: getAddress(r.holder), shares: r.shares })),
    })),
    holderCount: toCount(distinct.n),
    openInterest: openInterestOf(m.outstanding, m.prices).toString(),
  };
}
