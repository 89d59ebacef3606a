/**
 * Idempotency-Key records, scoped per principal. The first request with a key claims it
 * (in_progress), runs, and stores its final response; a retry with the same key and the same
 * request fingerprint replays that response; a different fingerprint is refused. A claim left
 * in_progress by a crashed process is taken over after LEASE_MS, so a crash never wedges a key (on the embedded
 * database, which one process holds, start-up releases such claims at once).
 * 5xx and 429 answers are not stored: the caller may retry them with the same key.
 *
 * Exactly once: a write whose effect is one database transaction records it in that transaction
 * (commitEffect: state committed, with a reference to what it made). A crash after that commit and
 * before the response is stored leaves the key committed, and the retry rebuilds the answer from the
 * reference instead of running again; a claim taken over meanwhile makes the effect's transaction fail,
 * so two processes never both commit an effect for one key.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { ERROR_CODES, problem } from '../../core/error-codes.ts';
import { ProblemError } from '../../core/errors.ts';
import { MEMBER_ALIVE_SQL } from '../../db/coordinator.ts';
import type { DB } from '../../db/schema.ts';

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;
const LEASE_MS = 60_000;

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export type Claim = { kind: 'new' } | { kind: 'replay'; response: StoredResponse } | { kind: 'committed'; ref: string };

/** Records, inside the effect's own transaction, that the request under this key made `ref` (an order id…). */
export type EffectRecorder = (trx: Transaction<DB>, ref: string) => Promise<void>;

/** The key's claim went to a retry while this request ran (its lease ran out): this request must change and store nothing. */
export class ClaimTakenOver extends ProblemError {
  constructor() {
    super('IDEMPOTENCY_IN_PROGRESS', ERROR_CODES.IDEMPOTENCY_IN_PROGRESS.status, 'this Idempotency-Key was taken over by a retry while the request ran; the retry answers it', {
      headers: { 'Retry-After': '1' },
    });
  }
}

/** Test hooks that simulate a crash at a point of a keyed request's life. */
export interface IdempotencyFaults {
  /** Inside the effect's transaction, after the claim is marked committed: throwing rolls the effect back (a crash before its commit). */
  duringEffect?: (principal: string, key: string) => void;
  /** After the handler (and its effect) ran, before its response is stored. */
  beforeComplete?: (principal: string, key: string) => void;
}

export interface IdempotencyService {
  claim(principal: string, key: string, requestHash: string, route: { method: string; path: string }): Promise<Claim>;
  /** Marks the claim committed with its effect; throws IDEMPOTENCY_IN_PROGRESS (rolling the effect back) if the claim is no longer this request's. */
  commitEffect(trx: Transaction<DB>, principal: string, key: string, ref: string): Promise<void>;
  complete(principal: string, key: string, response: StoredResponse): Promise<void>;
  /** The effect a claim committed (its reference), or null when it committed none. */
  committedEffect(principal: string, key: string): Promise<string | null>;
  /** Forgets a claim whose request made no effect (a committed one is kept: its effect happened). */
  release(principal: string, key: string): Promise<void>;
  purgeOlderThan(hours: number): Promise<number>;
  /**
   * Forgets every claim still in progress, with no committed effect: only for a start-up that knows no other process
   * can hold one (an embedded database is locked to one process), so a crash's retries need not wait out the lease.
   */
  releaseOrphanedClaims(): Promise<number>;
}

export const isStorable = (status: number): boolean => status < 500 && status !== 429;

export function createIdempotencyService(deps: { db: Kysely<DB>; clock: Clock; faults?: IdempotencyFaults; holder?: string | null }): IdempotencyService {
  const { db, clock } = deps;
  const holder = deps.holder ?? null;
  // A claim of another process that is dead (its member lock is free; docs/operations.md) is taken over at once.
  const holderDead = sql<boolean>`(holder IS NOT NULL AND holder IS DISTINCT FROM ${holder}
    AND NOT EXISTS (SELECT 1 FROM cluster_members m WHERE m.id = idempotency_records.holder AND ${sql.raw(MEMBER_ALIVE_SQL)}))`;
  return {
    async claim(principal, key, requestHash, route) {
      const now = clock.now();
      const inserted = await db
        .insertInto('idempotency_records')
        .values({
          principal,
          idem_key: key,
          method: route.method,
          path: route.path,
          request_hash: requestHash,
          state: 'in_progress',
          created_at: now,
          holder,
        })
        .onConflict((oc) => oc.columns(['principal', 'idem_key']).doNothing())
        .returning('idem_key')
        .executeTakeFirst();
      if (inserted) return { kind: 'new' };

      const existing = await db
        .selectFrom('idempotency_records')
        .selectAll()
        .where('principal', '=', principal)
        .where('idem_key', '=', key)
        .executeTakeFirst();
      if (!existing) return this.claim(principal, key, requestHash, route); // released between our two statements
      if (existing.request_hash !== requestHash) {
        throw problem(
          'IDEMPOTENCY_KEY_REUSED',
          'this Idempotency-Key was already used with a different request; use a new key for a new request',
        );
      }
      if (existing.state === 'committed' && existing.effect_ref !== null) return { kind: 'committed', ref: existing.effect_ref };
      if (existing.state === 'done') {
        return {
          kind: 'replay',
          response: {
            status: existing.status_code ?? 200,
            body: existing.response_body,
            headers: (existing.response_headers ?? {}) as Record<string, string>,
          },
        };
      }
      // In progress: take it over only if its lease ran out or its process is gone (its process died).
      const staleBefore = new Date(now.getTime() - LEASE_MS);
      const taken = await db
        .updateTable('idempotency_records')
        .set({ created_at: now, holder })
        .where('principal', '=', principal)
        .where('idem_key', '=', key)
        .where('state', '=', 'in_progress')
        .where((eb) => eb.or([eb('created_at', '<', staleBefore), holderDead]))
        .returning('idem_key')
        .executeTakeFirst();
      if (taken) return { kind: 'new' };
      throw problem('IDEMPOTENCY_IN_PROGRESS', 'a request with this Idempotency-Key is still being processed; retry shortly', {
        headers: { 'Retry-After': '1' },
      });
    },

    async commitEffect(trx, principal, key, ref) {
      const marked = await trx
        .updateTable('idempotency_records')
        .set({ state: 'committed', effect_ref: ref })
        .where('principal', '=', principal)
        .where('idem_key', '=', key)
        .where('state', '=', 'in_progress')
        // Another process took the claim over (this one was thought dead): its retry makes the effect, not this request.
        .where(sql<boolean>`holder IS NOT DISTINCT FROM ${holder}`)
        .returning('idem_key')
        .executeTakeFirst();
      if (!marked) throw new ClaimTakenOver();
      deps.faults?.duringEffect?.(principal, key);
    },

    async complete(principal, key, response) {
      deps.faults?.beforeComplete?.(principal, key);
      await db
        .updateTable('idempotency_records')
        .set({
          state: 'done',
          status_code: response.status,
          response_body: JSON.stringify(response.body ?? null),
          response_headers: JSON.stringify(response.headers),
          completed_at: clock.now(),
        })
        .where('principal', '=', principal)
        .where('idem_key', '=', key)
        .execute();
    },

    async committedEffect(principal, key) {
      const row = await db
        .selectFrom('idempotency_records')
        .select('effect_ref')
        .where('principal', '=', principal)
        .where('idem_key', '=', key)
        .where('state', '=', 'committed')
        .executeTakeFirst();
      return row?.effect_ref ?? null;
    },

    async release(principal, key) {
      await db.deleteFrom('idempotency_records').where('principal', '=', principal).where('idem_key', '=', key).where('state', '=', 'in_progress').execute();
    },

    async releaseOrphanedClaims() {
      const result = await db.deleteFrom('idempotency_records').where('state', '=', 'in_progress').executeTakeFirst();
      return Number(result.numDeletedRows ?? 0);
    },

    async purgeOlderThan(hours) {
      const before = new Date(clock.now().getTime() - hours * 3_600_000);
      const result = await db.deleteFrom('idempotency_records').where('created_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows ?? 0);
    },
  };
}

