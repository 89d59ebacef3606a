// Charging one request to a budget: the one place that turns a sliding-window hit into the
// RateLimit-* headers, or into 429 RATE_LIMITED with Retry-After (the pipeline's per-minute
// budgets and the hourly registration budgets both go through it).
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import type { RateLimitStore } from './store.ts';

export interface Budget {
  bucket: string;
  limit: number;
  windowMs: number;
  /** The problem detail when the budget is spent. */
  spent: (retryAfterSeconds: number) => string;
  extensions?: Record<string, unknown>;
}

/** Returns the RateLimit-* headers of the charged request; throws RATE_LIMITED (with them and Retry-After) when none is left. */
export async function chargeBudget(deps: { rateLimits: RateLimitStore; clock: Clock }, budget: Budget): Promise<Record<string, string>> {
  const nowMs = deps.clock.now().getTime();
  const hit = await deps.rateLimits.hit(budget.bucket, budget.limit, budget.windowMs, nowMs);
  const headers = {
    'RateLimit-Limit': String(hit.limit),
    'RateLimit-Remaining': String(hit.remaining),
    'RateLimit-Reset': String(Math.ceil(hit.resetAtMs / 1000)),
  };
  if (!hit.allowed) {
    const retryAfter = Math.max(1, Math.ceil((hit.resetAtMs - nowMs) / 1000));
    throw problem('RATE_LIMITED', budget.spent(retryAfter), { headers: { ...headers, 'Retry-After': String(retryAfter) }, extensions: budget.extensions });
  }
  return headers;
}
