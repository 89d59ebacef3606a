/**
 * The facts discovery theses are chosen from (docs/theses.md "Facts"), read from the projection in six bounded queries:
 * the candidate markets (live, tradeable, listed, with something recent to say), each category's cheapest and dearest
 * binary market, the window's volume and trade count, the prices in force a window ago, and the newest recent
 * forecast frame of each candidate.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { frameId, PROBABILITY_PATTERN, probabilityToWad } from '../../core/markets/frames.ts';
import { HOUR_MS, THESIS_RULES, type MarketFacts, type RelatedMarket } from '../../core/theses/choose.ts';
import { toCount, type DB } from '../../db/index.ts';
import { initialPrices } from '../markets/reads/prices.ts';
import type { MarketRow } from '../markets/records.ts';

/** Candidate markets read at most (the newest activity first); docs/theses.md "Facts". */
export const CANDIDATE_CAP = 500;

export interface ThesisFacts {
  markets: MarketFacts[];
  related: RelatedMarket[];
}

export interface ReadFactsParams {
  chainId: number;
  now: Date;
  /** Decimals of a collateral token (lowercase address). */
  decimalsOf(token: string): number;
}

/** Live and tradeable (isTradeable: open, before close, interaction enabled, policy active) and listed (isListed), on `chainId`. */
function live(chainId: number, now: Date): RawBuilder<boolean> {
  return sql<boolean>`(m.chain_id = ${chainId} AND m.listed AND m.state = 'open' AND m.close_time > ${now.toISOString()}::timestamptz
    AND m.controls->>'interaction' = 'enabled' AND m.controls->>'policy' = 'active')`;
}

export async function readThesisFacts(db: Kysely<DB>, p: ReadFactsParams): Promise<ThesisFacts> {
  const windowStart = new Date(p.now.getTime() - THESIS_RULES.windowHours * HOUR_MS);
  const closingBy = new Date(p.now.getTime() + THESIS_RULES.closingHours * HOUR_MS);
  const forecastSince = new Date(p.now.getTime() - THESIS_RULES.forecastHours * HOUR_MS);
  const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;

  // Markets with something recent to say: a trade or a creation in the window, a close within the horizon, a forecast.
  const candidates = (await db
    .selectFrom('markets as m')
    .selectAll('m')
    .where(live(p.chainId, p.now))
    .where(
      sql<boolean>`(m.last_trade_at > ${iso(windowStart)} OR m.created_at > ${iso(windowStart)} OR m.close_time <= ${iso(closingBy)}
        OR EXISTS (SELECT 1 FROM market_frames f WHERE f.chain_id = m.chain_id AND f.market = m.address AND f.kind = 'forecast' AND f.created_at > ${iso(forecastSince)}))`,
    )
    .orderBy(sql`coalesce(m.last_trade_at, m.created_at)`, 'desc')
    .orderBy('m.id', 'desc')
    .limit(CANDIDATE_CAP)
    .execute()) as MarketRow[];

  // The farthest market from any binary market of a category is its cheapest or its dearest (first outcome's price).
  const extreme = (direction: 'asc' | 'desc') =>
    db
      .selectFrom('markets as m')
      .distinctOn('m.category')
      .selectAll('m')
      .where(live(p.chainId, p.now))
      .where('m.outcome_count', '=', 2)
      .orderBy('m.category')
      .orderBy(sql`(m.prices->>0)::numeric`, direction)
      .orderBy('m.id', 'desc')
      .execute() as Promise<MarketRow[]>;
  const extremes = [...(await extreme('asc')), ...(await extreme('desc'))];

  const rows = new Map<string, MarketRow>();
  for (const r of [...candidates, ...extremes]) rows.set(r.address, r);
  const related = [...new Map(extremes.map((r) => [r.address, r])).values()].map((r) => ({
    address: r.address,
    question: r.question ?? '',
    category: r.category,
    price: BigInt(r.prices[0] ?? '0'),
  }));
  if (rows.size === 0) return { markets: [], related };
  const addresses = [...rows.keys()];

  const window = await db
    .selectFrom('market_trade_events')
    .select(['market', sql<string>`sum(cost)::text`.as('volume'), sql<string>`count(*)`.as('n')])
    .where('chain_id', '=', p.chainId)
    .where('market', 'in', addresses)
    .where(sql<boolean>`at > ${iso(windowStart)}`)
    .groupBy('market')
    .execute();
  const inWindow = new Map(window.map((r) => [r.market, { volume: BigInt(r.volume), trades: toCount(r.n) }]));

  // The 1D chart's opening point: the prices after the last trade before the window, for markets older than the window
  // that traded in it (the others' prices a window ago are their current ones, or the creation's 1/n).
  const older = [...rows.values()].filter((r) => r.created_at < windowStart && inWindow.has(r.address)).map((r) => r.address);
  const opening = new Map<string, string[]>();
  if (older.length > 0) {
    const found = await sql<{ market: string; prices: string[] }>`
      SELECT v.market, e.prices FROM (VALUES ${sql.join(older.map((a) => sql`(${a})`))}) AS v(market)
      CROSS JOIN LATERAL (
        SELECT prices FROM market_trade_events e
        WHERE e.chain_id = ${p.chainId} AND e.market = v.market AND e.at < ${iso(windowStart)}
        ORDER BY e.o1 DESC, e.o2 DESC LIMIT 1
      ) e`.execute(db);
    for (const r of found.rows) opening.set(r.market, r.prices);
  }

  const frames = await db
    .selectFrom('market_frames')
    .distinctOn('market')
    .select(['market', 'id', 'data', 'created_at'])
    .where('chain_id', '=', p.chainId)
    .where('market', 'in', addresses)
    .where('kind', '=', 'forecast')
    .where('created_at', '>', forecastSince)
    .orderBy('market')
    .orderBy('id', 'desc')
    .execute();
  const forecasts = new Map(frames.map((f) => [f.market, f]));

  const markets = [...rows.values()].map((r): MarketFacts => {
    const n = r.outcome_count;
    const prices = Array.from({ length: n }, (_, i) => BigInt(r.prices[i] ?? '0'));
    const traded = inWindow.get(r.address);
    const windowAgo = r.created_at >= windowStart ? initialPrices(n) : traded ? (opening.get(r.address) ?? initialPrices(n)) : r.prices;
    const frame = forecasts.get(r.address);
    return {
      chainId: r.chain_id,
      address: r.address,
      question: r.question ?? '',
      category: r.category,
      pricingModel: r.pricing_model,
      outcomes: Array.from({ length: n }, (_, i) => r.outcomes[i] ?? `Outcome ${i + 1}`),
      prices,
      pricesWindowAgo: Array.from({ length: n }, (_, i) => BigInt(windowAgo[i] ?? '0')),
      volumeWindow: traded?.volume ?? 0n,
      tradesWindow: traded?.trades ?? 0,
      tradeCount: r.trade_count,
      collateral: { symbol: r.collateral_symbol, decimals: p.decimalsOf(r.collateral_token) },
      closeTime: r.close_time,
      createdAt: r.created_at,
      forecast: frame ? forecastOf(frame, n) : null,
    };
  });
  return { markets, related };
}

/** A forecast frame's probabilities as 1e18-scaled integers, or null when they do not fit the market. */
function forecastOf(frame: { id: string; data: Record<string, unknown>; created_at: Date }, outcomes: number): MarketFacts['forecast'] {
  const probabilities = frame.data.probabilities;
  if (!Array.isArray(probabilities) || probabilities.length !== outcomes) return null;
  if (!probabilities.every((x): x is string => typeof x === 'string' && PROBABILITY_PATTERN.test(x))) return null;
  return { id: frameId(frame.id), publishedAt: frame.created_at, probabilities: probabilities.map(probabilityToWad) };
}
