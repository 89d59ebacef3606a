/** GET /markets/{address}/chart: a market's price series over a window. */
import { getAddress } from 'viem';
import { sql, type Kysely } from 'kysely';
import { toCount, type DB } from '../../../db/index.ts';
import type { MarketChartT } from '../../../wire/market-reads.ts';
import type { MarketRow } from '../records.ts';
import { initialPrices, toPrices } from './prices.ts';

export type ChartWindow = '1H' | '1D' | '1W' | 'ALL';
const WINDOW_MS: Record<Exclude<ChartWindow, 'ALL'>, number> = { '1H': 3_600_000, '1D': 86_400_000, '1W': 7 * 86_400_000 };
/** Points of a chart: the opening point plus at most this many trade buckets. */
export const CHART_TRADE_BUCKETS = 199;

/**
 * Price series of a market over `window`: the prices in force at the window start (the market's creation
 * for ALL or a younger market), then the prices after each trade in the window, downsampled to the last
 * trade of each of CHART_TRADE_BUCKETS equal time buckets; `latest` is the projection's current prices.
 */
export async function marketChart(db: Kysely<DB>, m: MarketRow, p: { window: ChartWindow; now: Date }): Promise<MarketChartT> {
  const created = m.created_at;
  const start = p.window === 'ALL' ? created : new Date(Math.max(created.getTime(), p.now.getTime() - WINDOW_MS[p.window]));
  // LMSR trades and order-book fills alike (the market_trade_events view, ordered by o1, o2).
  const trades = db.selectFrom('market_trade_events').where('chain_id', '=', m.chain_id).where('market', '=', m.address);

  let opening = initialPrices(m.outcome_count);
  if (start.getTime() > created.getTime()) {
    const before = await trades.select('prices').where('at', '<', start).orderBy('o1', 'desc').orderBy('o2', 'desc').limit(1).executeTakeFirst();
    if (before) opening = before.prices;
  }

  const { n } = await trades.select(sql<string>`count(*)`.as('n')).where('at', '>=', start).executeTakeFirstOrThrow();
  let rows: { at: Date; prices: string[] }[];
  if (toCount(n) <= CHART_TRADE_BUCKETS) {
    rows = await trades.select(['at', 'prices']).where('at', '>=', start).orderBy('o1').orderBy('o2').execute();
  } else {
    const spanSeconds = Math.max(1, (p.now.getTime() - start.getTime()) / 1000);
    const from = start.toISOString();
    const bucketed = await sql<{ at: Date; prices: string[] }>`
      SELECT DISTINCT ON (bucket) bucket, at, prices FROM (
        SELECT at, prices, o1, o2,
          least(floor(extract(epoch FROM (at - ${from}::timestamptz)) * ${CHART_TRADE_BUCKETS} / ${spanSeconds}::numeric), ${CHART_TRADE_BUCKETS - 1}) AS bucket
        FROM market_trade_events
        WHERE chain_id = ${m.chain_id} AND market = ${m.address} AND at >= ${from}::timestamptz
      ) t
      ORDER BY bucket, o1 DESC, o2 DESC`.execute(db);
    rows = bucketed.rows.map((r) => ({ at: new Date(r.at), prices: r.prices }));
  }

  return {
    market: getAddress(m.address),
    chainId: m.chain_id,
    window: p.window,
    points: [{ t: start.toISOString(), prices: toPrices(opening) }, ...rows.map((r) => ({ t: r.at.toISOString(), prices: toPrices(r.prices) }))],
    latest: { t: (m.last_trade_at ?? created).toISOString(), prices: toPrices(m.prices) },
  };
}
