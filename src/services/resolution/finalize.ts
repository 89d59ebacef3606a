/**
 * Finalizes an unchallenged proposal once its window has passed (POST /markets/{address}/resolution/finalize): open
 * to anyone, relayed at the protocol's gas under the operation id the keeper uses for the same step, so the two never
 * send it twice (docs/resolution.md "Actions").
 */
import type { ActionDeps } from './deps.ts';
import { relayStep, type RelayedStep } from './relay-step.ts';
import { resolvableMarket } from './resolvable-market.ts';

export type FinalizeError = 'MARKET_NOT_FOUND' | 'RESOLUTION_STEP_REFUSED' | 'CHALLENGE_WINDOW_OPEN';

/** The keeper's and this step's operation id. */
export const finalizeOperationId = (chainId: number, market: string): string => `resolution:${chainId}:${market.toLowerCase()}:finalize`;

export async function relayFinalize(deps: ActionDeps, address: string): Promise<RelayedStep & { market: string; chainId: number }> {
  const market = await resolvableMarket(deps, address);
  const step = await relayStep(deps, finalizeOperationId(deps.chainId, market.address), 'finalize', [market.address], {
    WrongPhase: { code: 'RESOLUTION_STEP_REFUSED', say: 'the market has no proposal waiting to be finalized (none yet, challenged, or already resolved)' },
  });
  return { ...step, market: market.address, chainId: deps.chainId };
}
