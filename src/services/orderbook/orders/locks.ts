/**
 * The first and the last resort of the order loop's lock order (docs/orderbook.md "Concurrency"): the per-owner
 * placement locks every batch of placements takes first, and the retry of a transaction the database broke as a deadlock.
 */
import { problem } from '../../../core/error-codes.ts';
import type { Account } from '../../../core/ledger/types.ts';
import type { Step } from '../../../db/pipeline.ts';
import { fixedStatement } from '../../../db/statement.ts';
import type { OrderLoopError } from './types.ts';

/** Namespace of the per-owner placement lock (pg_advisory_xact_lock(namespace, hashtext(owner))). */
const ORDER_OWNER_LOCK = 0x0b0c;
/** A placement or cancel the database aborted as a deadlock or serialization failure is tried this many times in all. */
const PLACE_ATTEMPTS = 3;
const isRetryable = (err: unknown): boolean => ['40P01', '40001'].includes(String((err as { code?: unknown } | null)?.code));

/** The lock conflict persisted through every attempt (503 with Retry-After). */
export type BusyError = OrderLoopError<'SERVICE_UNAVAILABLE'>;

const LOCK_OWNERS = fixedStatement(`SELECT pg_advisory_xact_lock($1, hashtext(o)) FROM unnest($2::text[]) AS o`);

/**
 * One placement of an owner at a time, whatever the market: what it may reserve depends on its others. A batch takes
 * the locks of all its owners at once, in one statement, sorted (the rows of unnest come in array order), so two
 * batches on different markets that share owners wait for each other instead of deadlocking.
 */
export function lockOwners(owners: readonly Account[]): Step<void> | null {
  const sorted = [...new Set(owners)].sort();
  if (sorted.length === 0) return null;
  return { query: LOCK_OWNERS(ORDER_OWNER_LOCK, sorted), read: () => undefined };
}

/**
 * Runs `attempt` again when the database aborted it as a deadlock or serialization failure (a writer outside the
 * order loop's lock order, e.g. the indexer voiding a market, can meet it); after PLACE_ATTEMPTS in all, 503.
 */
export async function retryingDeadlocks<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isRetryable(err)) throw err;
      if (n >= PLACE_ATTEMPTS) throw problem('SERVICE_UNAVAILABLE', 'the order book is busy (the database broke a lock conflict several times); retry shortly', { cause: err, headers: { 'Retry-After': '1' } });
    }
  }
}
