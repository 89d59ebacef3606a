/**
 * Reads of resolution (docs/resolution-reads.md): one market's resolution with the actions open to the caller, the
 * caller's resolution queue, and the resolutionSource catalog. This binds the read operations of this folder.
 */
import type { Principal } from '../../core/principal.ts';
import type { ResolutionReadDeps } from './read-context.ts';
import { resolutionQueue, type ResolutionQueue, type ResolutionQueueParams } from './resolution-queue.ts';
import { resolutionSources, type ResolutionSources } from './resolution-sources.ts';
import { marketResolutionState, type MarketResolutionState } from './resolution-state.ts';

export type { ResolutionReadDeps } from './read-context.ts';
export type { ResolutionQueue, ResolutionQueueItem } from './resolution-queue.ts';
export type { ResolutionSources } from './resolution-sources.ts';
export type { ActionAvailability, MarketResolutionState, ResolutionActionName } from './resolution-state.ts';

export interface ResolutionReadService {
  /** A market's resolution and the actions open to `principal` (null: what anyone may do). MARKET_NOT_FOUND. */
  state(address: string, principal: Principal | null): Promise<MarketResolutionState>;
  queue(params: ResolutionQueueParams): Promise<ResolutionQueue>;
  sources(): Promise<ResolutionSources>;
}

export function createResolutionReadService(deps: ResolutionReadDeps): ResolutionReadService {
  return {
    state: (address, principal) => marketResolutionState(deps, address, principal),
    queue: (params) => resolutionQueue(deps, params),
    sources: () => resolutionSources(deps),
  };
}
