/**
 * Hourly budgets of the keyless identity writes, on top of the per-minute keyless write budget:
 * they bound how fast one client can mint agents or mail strangers. Published as
 * registrationRateLimits in GET /auth-discovery; exceeding one answers 429 RATE_LIMITED with
 * Retry-After.
 */
import type { Clock } from '../../core/clock.ts';
import { chargeBudget } from '../rate-limit/charge.ts';
import type { RateLimitStore } from '../rate-limit/store.ts';

export const REGISTRATION_WINDOW_SECONDS = 3600;

export const REGISTRATION_LIMITS = {
  anonymous: { limit: 10, per: 'client address', description: 'anonymous registrations per client address per hour' },
  email: { limit: 10, per: 'client address', description: 'email registrations per client address per hour' },
  'email-address': { limit: 3, per: 'email address', description: 'registrations naming one email (agent email or owner email) per hour, so nobody is flooded with links' },
  wallet: { limit: 20, per: 'client address', description: 'wallet and claimed-agent registrations per client address per hour' },
  'key-recovery': { limit: 10, per: 'wallet', description: 'key recoveries per wallet per hour' },
} as const;

export type RegistrationBudget = keyof typeof REGISTRATION_LIMITS;

export async function chargeRegistration(deps: { rateLimits: RateLimitStore; clock: Clock }, budget: RegistrationBudget, subject: string): Promise<void> {
  const { limit, per } = REGISTRATION_LIMITS[budget];
  await chargeBudget(deps, {
    bucket: `registration:${budget}:${subject}`,
    limit,
    windowMs: REGISTRATION_WINDOW_SECONDS * 1000,
    spent: (retryAfter) => `the ${budget} budget of ${limit} per hour (${per}) is spent; retry after ${retryAfter} s`,
    extensions: { budget },
  });
}
