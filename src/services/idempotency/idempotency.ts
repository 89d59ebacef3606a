/**
 * Idempotency-Key records, scoped per principal. The first request with a key claims it
 * (in_progress), runs, and stores its final response; a retry with the same key and the same
 * request fingerprint replays that response; a different fingerprint is refused. A claim left
 * in_progress by a crashed process is taken over after LEASE_MS, so a crash never wedges a key.
 * 5xx and 429 answers are not stored: the caller may retry them with the same key.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import type { DB } from '../../db/schema.ts';

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;
const LEASE_MS = 60_000;

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export type Claim = { kind: 'new' } | { kind: 'replay'; response: StoredResponse };

export interface IdempotencyService {
  claim(principal: string, key: string, requestHash: string, route: { method: string; path: string }): Promise<Claim>;
  complete(principal: string, key: string, response: StoredResponse): Promise<void>;
  release(principal: string, key: string): Promise<void>;
  purgeOlderThan(hours: number): Promise<number>;
}

export const isStorable = (status: number): boolean => status < 500 && status !== 429;

export function createIdempotencyService(deps: { db: Kysely<DB>; clock: Clock }): IdempotencyService {
  const { db, clock } = deps;
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
      // In progress: take it over only if its lease ran out (its process died).
      const staleBefore = new Date(now.getTime() - LEASE_MS);
      const taken = await db
        .updateTable('idempotency_records')
        .set({ created_at: now })
        .where('principal', '=', principal)
        .where('idem_key', '=', key)
        .where('state', '=', 'in_progress')
        .where('created_at', '<', staleBefore)
        .returning('idem_key')
        .executeTakeFirst();
      if (taken) return { kind: 'new' };
      throw problem('IDEMPOTENCY_IN_PROGRESS', 'a request with this Idempotency-Key is still being processed; retry shortly', {
        headers: { 'Retry-After': '1' },
      });
    },

    async complete(principal, key, response) {
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

    async release(principal, key) {
      await db.deleteFrom('idempotency_records').where('principal', '=', principal).where('idem_key', '=', key).execute();
    },

    async purgeOlderThan(hours) {
      const before = new Date(clock.now().getTime() - hours * 3_600_000);
      const result = await db.deleteFrom('idempotency_records').where('created_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows ?? 0);
    },
  };
}

