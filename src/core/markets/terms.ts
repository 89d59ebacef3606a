/**
 * Market terms of the create loop: what a creator proposes, the checks a deploy needs, and the protocol's
 * counter rules (docs/markets.md, "The create loop"). Pure: the caller supplies the clock, the floors and the
 * creator's live-market count.
 */
import { canonicalHash } from '../canonical-json.ts';
import { CLOSE_TIME_MAX_MS, CLOSE_TIME_MIN_MS, LMSR_FEES, MAX_LIVE_MARKETS_PER_CREATOR } from './fees.ts';

export interface MarketTerms {
  question: string;
  description: string | null;
  category: string;
  /** Outcome labels in trade-side order; 2 or 3. */
  outcomes: string[];
  /** automated (LMSR, on-chain collateral) or ORDERBOOK (binary, play money in the ledger). */
  pricingModel: 'automated' | 'ORDERBOOK';
  /** PLAY for ORDERBOOK markets. */
  collateral: 'USDC' | 'PM' | 'PLAY';
  /** ISO timestamp, whole seconds (the chain stores Unix seconds). */
  closeTime: string;
  resolutionSource: string;
  /** LMSR b, collateral base units, decimal string; '0' for ORDERBOOK markets. */
  liquidity: string;
  creatorFeeBps: number;
  externalId: string | null;
}

export type TermsProblemCode =
  | 'LIQUIDITY_BELOW_FLOOR'
  | 'CREATOR_FEE_OUT_OF_RANGE'
  | 'CLOSE_TIME_TOO_SOON'
  | 'CLOSE_TIME_TOO_FAR'
  | 'LIVE_MARKET_CAP_REACHED'
  | 'ORDERBOOK_NOT_BINARY';

export interface TermsProblem {
  field: string;
  code: TermsProblemCode;
  message: string;
  /** The value the protocol counters with; absent when the problem cannot be countered. */
  counter?: string | number;
}

export interface TermsContext {
  now: Date;
  /** Floor of b for the terms' collateral, base units. */
  minLiquidity: bigint;
  /** Creator's markets that are open or closed (not yet resolved or void). */
  liveMarkets: number;
  /** The creator's cap on them (its reputation tier's gate); MAX_LIVE_MARKETS_PER_CREATOR when not given. */
  maxLiveMarkets?: number;
}

const SECOND = 1000;

/** Every problem at once; counterable ones carry the value the protocol would counter with. */
export function checkTerms(t: MarketTerms, ctx: TermsContext): TermsProblem[] {
  const problems: TermsProblem[] = [];
  const orderbook = t.pricingModel === 'ORDERBOOK';
  if (orderbook && t.outcomes.length !== 2) {
    problems.push({ field: 'outcomes', code: 'ORDERBOOK_NOT_BINARY', message: 'an ORDERBOOK market has exactly 2 outcomes' });
  }
  if (!orderbook && BigInt(t.liquidity) < ctx.minLiquidity) {
    problems.push({ field: 'liquidity', code: 'LIQUIDITY_BELOW_FLOOR', message: `liquidity ${t.liquidity} is below the floor ${ctx.minLiquidity} for ${t.collateral}`, counter: ctx.minLiquidity.toString() });
  }
  if (!orderbook && (t.creatorFeeBps < LMSR_FEES.creatorFeeBpsMin || t.creatorFeeBps > LMSR_FEES.creatorFeeBpsMax)) {
    const counter = Math.min(Math.max(t.creatorFeeBps, LMSR_FEES.creatorFeeBpsMin), LMSR_FEES.creatorFeeBpsMax);
    problems.push({ field: 'creatorFeeBps', code: 'CREATOR_FEE_OUT_OF_RANGE', message: `creatorFeeBps must be within ${LMSR_FEES.creatorFeeBpsMin}..${LMSR_FEES.creatorFeeBpsMax}`, counter });
  }
  const close = Date.parse(t.closeTime);
  const earliest = ceilToSecond(ctx.now.getTime() + CLOSE_TIME_MIN_MS);
  const latest = floorToSecond(ctx.now.getTime() + CLOSE_TIME_MAX_MS);
  if (close < earliest) {
    problems.push({ field: 'closeTime', code: 'CLOSE_TIME_TOO_SOON', message: 'closeTime must be at least 1 hour ahead', counter: new Date(earliest).toISOString() });
  } else if (close > latest) {
    problems.push({ field: 'closeTime', code: 'CLOSE_TIME_TOO_FAR', message: 'closeTime must be at most 365 days ahead', counter: new Date(latest).toISOString() });
  }
  const cap = ctx.maxLiveMarkets ?? MAX_LIVE_MARKETS_PER_CREATOR;
  if (ctx.liveMarkets >= cap) {
    problems.push({ field: 'creator', code: 'LIVE_MARKET_CAP_REACHED', message: `the creator already has ${ctx.liveMarkets} live markets (at most ${cap} for its reputation tier)` });
  }
  return problems;
}

export interface CounterChange {
  field: string;
  proposed: string | number;
  countered: string | number;
  rule: TermsProblemCode;
}

/** Applies every counterable problem; null when nothing is countered. Throws nothing: non-counterable problems stay with the caller. */
export function counterTerms(t: MarketTerms, problems: readonly TermsProblem[]): { terms: MarketTerms; changes: CounterChange[] } | null {
  const changes: CounterChange[] = [];
  const next: MarketTerms = { ...t };
  for (const p of problems) {
    if (p.counter === undefined) continue;
    const field = p.field as 'liquidity' | 'creatorFeeBps' | 'closeTime';
    changes.push({ field, proposed: t[field], countered: p.counter, rule: p.code });
    (next as unknown as Record<string, unknown>)[field] = p.counter;
  }
  return changes.length > 0 ? { terms: next, changes } : null;
}

/**
 * keccak256 of the canonical JSON of the question document (RFC 8785 style, docs/canonical-json.md). The factory
 * stores this hash; the service keeps the document, so anyone can check a market's text against the chain.
 */
export function questionHash(t: MarketTerms, chainId: number): `0x${string}` {
  return canonicalHash({
    v: 1,
    chainId,
    question: t.question,
    description: t.description,
    category: t.category,
    outcomes: t.outcomes,
    resolutionSource: t.resolutionSource,
    externalId: t.externalId,
    // Only order-book documents name their model, so every automated market's hash stays what it was.
    ...(t.pricingModel === 'ORDERBOOK' ? { pricingModel: 'ORDERBOOK' } : {}),
  });
}

const ceilToSecond = (ms: number) => Math.ceil(ms / SECOND) * SECOND;
const floorToSecond = (ms: number) => Math.floor(ms / SECOND) * SECOND;
