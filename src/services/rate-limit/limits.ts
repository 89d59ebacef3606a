// Per-minute budgets by caller class and rate class. The spec leaves the numbers open; these are
// published in auth-discovery and docs/http.md.
import type { AgentTier } from '../../api/catalog/types.ts';

export const RATE_WINDOW_MS = 60_000;

export type CallerClass = 'anonymous' | AgentTier;

export const RATE_LIMITS: Record<CallerClass, { read: number; write: number }> = {
  anonymous: { read: 60, write: 20 },
  'read-only': { read: 120, write: 30 },
  propose: { read: 300, write: 60 },
  execute: { read: 600, write: 120 },
};
