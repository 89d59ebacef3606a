// The terms checks of the create loop (core/markets/terms.ts) with the creator's live-market count, and what
// propose and prepare-deploy refuse.
import { problem } from '../../../core/error-codes.ts';
import { MAX_LIVE_MARKETS_PER_CREATOR, MIN_LIQUIDITY } from '../../../core/markets/fees.ts';
import { checkTerms, type MarketTerms, type TermsProblem } from '../../../core/markets/terms.ts';
import type { NegotiationDeps } from './deps.ts';

export interface TermsCheck {
  /** Every problem at once; counterable ones carry the counter. */
  problems: TermsProblem[];
  /** The creator's live markets. */
  live: number;
  /** The creator's cap on them (its reputation tier's gate). */
  cap: number;
}

export async function checkCreatorTerms(deps: Pick<NegotiationDeps, 'clock' | 'countLive' | 'liveMarketCap'>, terms: MarketTerms, creator: string): Promise<TermsCheck> {
  const live = await deps.countLive(creator);
  const cap = (await deps.liveMarketCap?.(creator)) ?? MAX_LIVE_MARKETS_PER_CREATOR;
  const minLiquidity = terms.collateral === 'PLAY' ? 0n : MIN_LIQUIDITY[terms.collateral];
  return { problems: checkTerms(terms, { now: deps.clock.now(), minLiquidity, liveMarkets: live, maxLiveMarkets: cap }), live, cap };
}

/** propose counters what it can; anything else is LIVE_MARKET_CAP_REACHED (409) or TERMS_REJECTED (422). */
export function requireCounterable(problems: readonly TermsProblem[]): void {
  const blocking = problems.filter((p) => p.counter === undefined);
  if (blocking.some((p) => p.code === 'LIVE_MARKET_CAP_REACHED')) throw problem('LIVE_MARKET_CAP_REACHED', blocking[0]!.message);
  if (blocking.length > 0) throw problem('TERMS_REJECTED', blocking.map((p) => p.message).join('; '), { errors: blocking.map((p) => ({ path: `body.${p.field}`, message: p.message })) });
}

/** Time has passed since the proposal: the close time or the cap may no longer hold, and nothing is countered now. */
export async function requireTermsStillHold(deps: Pick<NegotiationDeps, 'clock' | 'countLive' | 'liveMarketCap'>, terms: MarketTerms, creator: string): Promise<void> {
  const { problems } = await checkCreatorTerms(deps, terms, creator);
  if (problems.length === 0) return;
  const cap = problems.find((p) => p.code === 'LIVE_MARKET_CAP_REACHED');
  if (cap) throw problem('LIVE_MARKET_CAP_REACHED', cap.message);
  throw problem('TERMS_REJECTED', `the accepted terms no longer hold: ${problems.map((p) => p.message).join('; ')}; propose again`, { errors: problems.map((p) => ({ path: `terms.${p.field}`, message: p.message })) });
}
