// Per-minute budgets by caller class and rate class. The spec leaves the numbers open; these are
// published in auth-discovery and docs/http.md.
import type { AgentTier } from '../../core/tiers.ts';

export const RATE_WINDOW_MS = 60_000;

export type CallerClass = 'anonymous' | AgentTier;

export const RATE_LIMITS: Record<CallerClass, { read: number; write: number }> = {
  anonymous: { read: 60, write: 20 },
  'read-only': { read: 120, write: 30 },
  propose: { read: 300, write: 60 },
  execute: { read: 600, write: 120 },
};

/**
 * The per-agent data budget for market-surface publishing (spec: "write budget vs data budget"):
 * frames per market per minute, with dataPerMinute the aggregate backstop across markets.
 */
export const DATA_PLANE_LIMITS: Record<AgentTier, { framesPerMarketPerMinute: number; dataPerMinute: number }> = {
  'read-only': { framesPerMarketPerMinute: 0, dataPerMinute: 0 },
  propose: { framesPerMarketPerMinute: 30, dataPerMinute: 300 },
  execute: { framesPerMarketPerMinute: 60, dataPerMinute: 1200 },
};
