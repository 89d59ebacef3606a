/**
 * The delivery policy GET /webhooks/discovery publishes (docs/events.md "Webhooks"): the retry schedule (Standard
 * Webhooks' example schedule, cut after 10 h steps so a delivery gives up after about 27.6 hours), its jitter, when an
 * endpoint is disabled, how long a rotated secret keeps signing, the request timeout and the limits. Pure.
 */
import { createHash } from 'node:crypto';

/** Delay before each retry, seconds: the first retry 5 s after the first attempt failed, the last 10 h after the 7th. */
export const RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000];
/** Attempts of one delivery: the first, then one per retry delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** Each retry waits its delay plus up to this fraction more (spreads retries of many deliveries failing at once). */
export const RETRY_JITTER = 0.1;
/** An endpoint whose deliveries have all failed for this long (no success in between) is disabled (reason FAILING). */
export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000;
/** After a rotation, the previous secret signs alongside the new one for this long (ms), unless asked for less. */
export const ROTATION_OVERLAP_MS = 86_400_000;
/** One attempt's deadline, ms (Standard Webhooks recommends 15 to 30 s). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** How long a claimed attempt is held before another sender may take it (the sender died mid-attempt), ms. */
export const ATTEMPT_LEASE_MS = 60_000;
export const MAX_ENDPOINTS_PER_AGENT = 10;
export const MAX_FILTER_KINDS = 50;
export const MAX_FILTER_MARKETS = 100;
export const MAX_URL_LENGTH = 2_048;

/** A number in [0, 1) fixed by `seed` (a delivery and its attempt): the same retry is scheduled the same way everywhere. */
export function jitterUnit(seed: string): number {
  return createHash('sha256').update(seed, 'utf8').digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * Milliseconds from now until the next attempt of a delivery that has failed `attempts` times, or null when no
 * attempt is left. `unit` in [0, 1) draws the jitter; a receiver's Retry-After (seconds) pushes the retry later, up to
 * the longest step of the schedule.
 */
export function retryDelayMs(attempts: number, unit: number, retryAfterSeconds: number | null = null): number | null {
  if (attempts < 1 || attempts >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_SECONDS[attempts - 1]! * 1000;
  const scheduled = Math.round(base * (1 + RETRY_JITTER * unit));
  if (retryAfterSeconds === null || !Number.isFinite(retryAfterSeconds) || retryAfterSeconds <= 0) return scheduled;
  return Math.max(scheduled, Math.min(retryAfterSeconds * 1000, Math.max(...RETRY_DELAYS_SECONDS) * 1000));
}
