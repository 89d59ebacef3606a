/**
 * Which live markets deserve a look, and why (docs/theses.md): each market's facts become zero or more reasons, each
 * with a strength in (0, 1]; a market's score is the sum of its reasons' strengths; the best THESES_CAP markets are
 * kept. Pure: the facts are read by src/services/theses/, the text is written by ./present.ts.
 *
 * Units: prices are 1e18-scaled bigints (WAD = 1); amounts are collateral base units; times are Dates; a "point" is
 * one hundredth of a price (one percentage point).
 */
import { WAD } from '../markets/price.ts';

export const HOUR_MS = 3_600_000;

export const THESIS_RULES = {
  /** Theses answered at most. */
  cap: 20,
  /** The window of price moves, volume and new markets, in hours. */
  windowHours: 24,
  /** A price move counts from this many points (0.05 = 5 points) on any outcome. */
  moveMinWad: WAD / 20n,
  /** …and is at full strength from 25 points. */
  moveFullWad: WAD / 4n,
  /** Volume counts from this many whole units of the market's collateral in the window… */
  volumeMinUnits: 100n,
  /** …over at least this many trades (order-book fills count as trades). */
  volumeMinTrades: 3,
  /** Volume is at full strength at 10^volumeFullLog10 whole units (10,000). */
  volumeFullLog10: 4,
  /** A market closing within this many hours is closing soon. */
  closingHours: 48,
  /** Two binary markets of one category disagree from this gap between their first outcome's prices (30 points)… */
  disagreementMinWad: (3n * WAD) / 10n,
  /** …at full strength from 60 points. */
  disagreementFullWad: (6n * WAD) / 10n,
  /** A forecast frame counts when published within this many hours… */
  forecastHours: 72,
  /** …and some outcome's forecast is this far from its price (10 points)… */
  forecastMinWad: WAD / 10n,
  /** …at full strength from 30 points. */
  forecastFullWad: (3n * WAD) / 10n,
  /** A market created within windowHours is new; being new is a weak reason on its own. */
  newMarketStrength: 0.2,
} as const;

export const REASON_KINDS = ['price_move', 'volume', 'closing_soon', 'disagreement', 'forecast', 'new_market'] as const;
export type ReasonKind = (typeof REASON_KINDS)[number];

/** What a market's thesis is built from; read from the projection (markets, market_trade_events, market_frames). */
export interface MarketFacts {
  chainId: number;
  /** Lowercase. */
  address: string;
  question: string;
  category: string;
  pricingModel: 'automated' | 'ORDERBOOK';
  /** Outcome labels, in outcome order. */
  outcomes: readonly string[];
  /** Current prices, 1e18-scaled, one per outcome. */
  prices: readonly bigint[];
  /** Prices in force windowHours ago (the 1D chart's opening point: the creation's 1/n for a younger market). */
  pricesWindowAgo: readonly bigint[];
  /** Σ cost of the trades in the window, collateral base units, fees excluded. */
  volumeWindow: bigint;
  tradesWindow: number;
  /** Trades since creation. */
  tradeCount: number;
  collateral: { symbol: string; decimals: number };
  closeTime: Date;
  createdAt: Date;
  /** The newest forecast frame of the last forecastHours, if any; probabilities 1e18-scaled, one per outcome. */
  forecast: { id: string; publishedAt: Date; probabilities: readonly bigint[] } | null;
}

/** A market another one may disagree with: the cheapest and dearest first outcome of each category (binary markets). */
export interface RelatedMarket {
  address: string;
  question: string;
  category: string;
  /** Price of the first outcome, 1e18-scaled. */
  price: bigint;
}

export type Reason =
  | { kind: 'price_move'; strength: number; outcome: number; from: bigint; to: bigint; windowHours: number }
  | { kind: 'volume'; strength: number; volume: bigint; trades: number; windowHours: number }
  | { kind: 'closing_soon'; strength: number; closeTime: Date; secondsLeft: number }
  | { kind: 'disagreement'; strength: number; outcome: 0; price: bigint; related: RelatedMarket }
  | { kind: 'forecast'; strength: number; frameId: string; publishedAt: Date; outcome: number; forecast: bigint; price: bigint }
  | { kind: 'new_market'; strength: number; createdAt: Date; secondsOpen: number; trades: number };

export interface ChosenThesis {
  market: MarketFacts;
  /** Σ strength of the reasons. */
  score: number;
  /** Strongest first. */
  reasons: Reason[];
}

const abs = (v: bigint): bigint => (v < 0n ? -v : v);

/** `amount` base units as whole units of a `decimals` token, to the hundredth: for display and ranking, never for money. */
export const wholeUnits = (amount: bigint, decimals: number): number => Number((amount * 100n) / 10n ** BigInt(decimals)) / 100;
/** Strength of a gap between `min` (0+) and `full` (1), linear and capped. */
const ramp = (gap: bigint, full: bigint): number => Math.min(1, Number(gap) / Number(full));

/** The outcome whose price moved most over the window (ties: the lowest index), if it moved at least moveMinWad. */
export function priceMove(m: MarketFacts): Extract<Reason, { kind: 'price_move' }> | null {
  let best = -1;
  let bestGap = 0n;
  m.prices.forEach((p, i) => {
    const gap = abs(p - (m.pricesWindowAgo[i] ?? p));
    if (gap > bestGap) [best, bestGap] = [i, gap];
  });
  if (best < 0 || bestGap < THESIS_RULES.moveMinWad) return null;
  return { kind: 'price_move', strength: ramp(bestGap, THESIS_RULES.moveFullWad), outcome: best, from: m.pricesWindowAgo[best]!, to: m.prices[best]!, windowHours: THESIS_RULES.windowHours };
}

/** Busy markets: at least volumeMinUnits whole collateral units over volumeMinTrades trades; strength log10(units)/4. */
export function volume(m: MarketFacts): Extract<Reason, { kind: 'volume' }> | null {
  const unit = 10n ** BigInt(m.collateral.decimals);
  if (m.volumeWindow < THESIS_RULES.volumeMinUnits * unit || m.tradesWindow < THESIS_RULES.volumeMinTrades) return null;
  return {
    kind: 'volume',
    strength: Math.min(1, Math.log10(wholeUnits(m.volumeWindow, m.collateral.decimals)) / THESIS_RULES.volumeFullLog10),
    volume: m.volumeWindow,
    trades: m.tradesWindow,
    windowHours: THESIS_RULES.windowHours,
  };
}

/** Closes within closingHours: strength from 0.3 (a full closingHours away) to 1 (closing now). */
export function closingSoon(m: MarketFacts, now: Date): Extract<Reason, { kind: 'closing_soon' }> | null {
  const leftMs = m.closeTime.getTime() - now.getTime();
  const horizon = THESIS_RULES.closingHours * HOUR_MS;
  if (leftMs <= 0 || leftMs > horizon) return null;
  return { kind: 'closing_soon', strength: 0.3 + 0.7 * (1 - leftMs / horizon), closeTime: m.closeTime, secondsLeft: Math.floor(leftMs / 1000) };
}

/**
 * The related market (same category, binary, another address) whose first outcome is priced farthest from this
 * market's, when the gap is at least disagreementMinWad. Only binary markets compare: their first outcome is the
 * question's "yes". The farthest market of a category is its cheapest or its dearest, so `related` needs only those.
 */
export function disagreement(m: MarketFacts, related: readonly RelatedMarket[]): Extract<Reason, { kind: 'disagreement' }> | null {
  if (m.outcomes.length !== 2) return null;
  const price = m.prices[0]!;
  let best: RelatedMarket | null = null;
  let bestGap = 0n;
  for (const r of related) {
    if (r.category !== m.category || r.address === m.address) continue;
    const gap = abs(r.price - price);
    if (gap > bestGap || (gap === bestGap && best !== null && r.address < best.address)) [best, bestGap] = [r, gap];
  }
  if (best === null || bestGap < THESIS_RULES.disagreementMinWad) return null;
  return { kind: 'disagreement', strength: ramp(bestGap, THESIS_RULES.disagreementFullWad), outcome: 0, price, related: best };
}

/** A recent forecast frame far from the market: the outcome with the largest |forecast − price| (ties: lowest index). */
export function forecastGap(m: MarketFacts, now: Date): Extract<Reason, { kind: 'forecast' }> | null {
  const f = m.forecast;
  if (f === null || f.probabilities.length !== m.prices.length) return null;
  const age = now.getTime() - f.publishedAt.getTime();
  if (age < 0 || age > THESIS_RULES.forecastHours * HOUR_MS) return null;
  let best = -1;
  let bestGap = 0n;
  f.probabilities.forEach((p, i) => {
    const gap = abs(p - m.prices[i]!);
    if (gap > bestGap) [best, bestGap] = [i, gap];
  });
  if (best < 0 || bestGap < THESIS_RULES.forecastMinWad) return null;
  return {
    kind: 'forecast',
    strength: ramp(bestGap, THESIS_RULES.forecastFullWad),
    frameId: f.id,
    publishedAt: f.publishedAt,
    outcome: best,
    forecast: f.probabilities[best]!,
    price: m.prices[best]!,
  };
}

/** Created within windowHours: a constant, weak reason. */
export function newMarket(m: MarketFacts, now: Date): Extract<Reason, { kind: 'new_market' }> | null {
  const openMs = now.getTime() - m.createdAt.getTime();
  if (openMs < 0 || openMs > THESIS_RULES.windowHours * HOUR_MS) return null;
  return { kind: 'new_market', strength: THESIS_RULES.newMarketStrength, createdAt: m.createdAt, secondsOpen: Math.floor(openMs / 1000), trades: m.tradeCount };
}

/** Every reason `m` has, strongest first (ties in REASON_KINDS order). */
export function reasonsFor(m: MarketFacts, related: readonly RelatedMarket[], now: Date): Reason[] {
  const found = [priceMove(m), volume(m), closingSoon(m, now), disagreement(m, related), forecastGap(m, now), newMarket(m, now)].filter((r): r is Reason => r !== null);
  return found.sort((a, b) => b.strength - a.strength || REASON_KINDS.indexOf(a.kind) - REASON_KINDS.indexOf(b.kind));
}

const volumeOf = (m: MarketFacts): number => wholeUnits(m.volumeWindow, m.collateral.decimals);

/**
 * The theses of `markets` (live, tradeable, listed: the caller's filter), best first, at most `cap`: markets with no
 * reason are left out; order by score, then the window's volume in whole collateral units, then the soonest close,
 * then address.
 */
export function chooseTheses(markets: readonly MarketFacts[], related: readonly RelatedMarket[], now: Date, cap: number = THESIS_RULES.cap): ChosenThesis[] {
  const chosen: ChosenThesis[] = [];
  for (const market of markets) {
    const reasons = reasonsFor(market, related, now);
    if (reasons.length === 0) continue;
    chosen.push({ market, reasons, score: reasons.reduce((s, r) => s + r.strength, 0) });
  }
  chosen.sort(
    (a, b) =>
      b.score - a.score ||
      volumeOf(b.market) - volumeOf(a.market) ||
      a.market.closeTime.getTime() - b.market.closeTime.getTime() ||
      (a.market.address < b.market.address ? -1 : a.market.address > b.market.address ? 1 : 0),
  );
  return chosen.slice(0, cap);
}
