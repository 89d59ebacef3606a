/**
 * Market-surface publishing, the data plane (docs/market-data.md): agents publish typed frames onto a market's
 * surface; subscribers get them as market.frame events on the market's channel; the market's frames read lists them.
 * This binds the operations of this folder.
 */
import type { AgentTier } from '../../core/tiers.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { FrameView, MarketDataDeps } from './deps.ts';
import { getFrame } from './get.ts';
import { listFrames, type FramePage, type ListFramesInput } from './list.ts';
import { publishFrame, type PublishedFrame, type PublishFrameInput } from './publish.ts';

export type { FramePublisher, FrameView, MarketDataDeps } from './deps.ts';
export type { FramePage, ListFramesInput } from './list.ts';
export type { PublishedFrame, PublishFrameInput } from './publish.ts';

export interface MarketDataService {
  /** Frames per market per minute and the aggregate per minute, by tier (GET /me dataPlane, the discovery document). */
  readonly limits: MarketDataDeps['limits'];
  publish(caller: { agentId: string | null; tier: AgentTier }, input: PublishFrameInput, recordEffect?: EffectRecorder): Promise<PublishedFrame>;
  list(input: ListFramesInput): Promise<FramePage>;
  get(id: string): Promise<FrameView>;
}

export function createMarketDataService(deps: MarketDataDeps): MarketDataService {
  return {
    limits: deps.limits,
    publish: (caller, input, recordEffect) => publishFrame(deps, caller, input, recordEffect),
    list: (input) => listFrames(deps, input),
    get: (id) => getFrame(deps, id),
  };
}
