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
import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { ERROR_CODES, problem } from '../../core/error-codes.ts';
import { ProblemError } from '../../core/errors.ts';
import { grouped } from '../../core/group.ts';
import { MEMBER_ALIVE_SQL } from '../../db/coordinator.ts';
import { deferStep, runStep, type Step } from '../../db/pipeline.ts';
import { unnestRows, type Cell } from '../../db/unnest.ts';
import type { DB, IdempotencyRecordsTable } from '../../db/schema.ts';

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

interface Effect {
  principal: string;
  key: string;
  ref: string;
}

const rowKey = (principal: string, key: string): string => `${principal}\u0000${key}`;

export function createIdempotencyService(deps: { db: Kysely<DB>; clock: Clock; faults?: IdempotencyFaults; holder?: string | null }): IdempotencyService {
  const { db, clock } = deps;
  const holder = deps.holder ?? null;
  // A claim of another process that is dead (its member lock is free; docs/operations.md) is taken over at once.
  const holderDead = sql<boolean>`(holder IS NOT NULL AND holder IS DISTINCT FROM ${holder}
    AND NOT EXISTS (SELECT 1 FROM cluster_members m WHERE m.id = idempotency_records.holder AND ${sql.raw(MEMBER_ALIVE_SQL)}))`;
  // Claims and answers of concurrent requests go into one statement each (group commit): a claim is still committed
  // before its request runs, and an answer before it is sent.
  const claimNew = grouped(async (rows: Insertable<IdempotencyRecordsTable>[]) => {
    // A key twice in one group: the first goes in; the second finds it, as it would a statement later.
    const first = new Map<string, number>();
    rows.forEach((r, i) => first.has(rowKey(r.principal, r.idem_key)) || first.set(rowKey(r.principal, r.idem_key), i));
    const fresh = rows.filter((r, i) => first.get(rowKey(r.principal, r.idem_key)) === i);
    // One statement text whatever the group's size (src/db/unnest.ts).
    const columns = ['principal', 'idem_key', 'method', 'path', 'request_hash', 'state', 'created_at', 'holder'] as const;
    const { rows: inserted } = await sql<{ principal: string; idem_key: string }>`INSERT INTO idempotency_records (${sql.raw(columns.join(', '))})
      SELECT u.principal, u.idem_key, u.method, u.path, u.request_hash, u.state, u.created_at::timestamptz, u.holder
      FROM ${unnestRows('u', columns, fresh.map((r) => columns.map((c) => r[c] as Cell)))}
      ON CONFLICT (principal, idem_key) DO NOTHING
      RETURNING principal, idem_key`.execute(db);
    const made = new Set(inserted.map((r) => rowKey(r.principal, r.idem_key)));
    return rows.map((r, i) => first.get(rowKey(r.principal, r.idem_key)) === i && made.has(rowKey(r.principal, r.idem_key)));
  });
  const storeAnswer = grouped(async (answers: { principal: string; key: string; response: StoredResponse; at: Date }[]) => {
    const cells = answers.map((a) => [a.principal, a.key, a.response.status, JSON.stringify(a.response.body ?? null), JSON.stringify(a.response.headers), a.at]);
    await sql`UPDATE idempotency_records AS r
      SET state = 'done', status_code = v.status::int, response_body = v.body::jsonb, response_headers = v.headers::jsonb, completed_at = v.at::timestamptz
      FROM ${unnestRows('v', ['principal', 'idem_key', 'status', 'body', 'headers', 'at'], cells)}
      WHERE r.principal = v.principal AND r.idem_key = v.idem_key`.execute(db);
    return answers.map(() => undefined);
  });

  // The effects one transaction records (a batch of orders) go into one statement when they are recorded together:
  // sent with the transaction's next pipeline (a batch's first writes), or on their own a turn of the event loop later
  // when none comes first (src/db/pipeline.ts deferStep).
  const pendingEffects = new WeakMap<Transaction<DB>, { effects: Effect[]; settle: { resolve(made: boolean): void; reject(err: unknown): void }[] }>();
  const effectsStep = (trx: Transaction<DB>, { effects, settle }: { effects: Effect[]; settle: { resolve(made: boolean): void; reject(err: unknown): void }[] }): Step<void> => ({
    query: sql`UPDATE idempotency_records AS r
      SET state = 'committed', effect_ref = v.ref
      FROM ${unnestRows('v', ['principal', 'idem_key', 'ref'], effects.map((e) => [e.principal, e.key, e.ref]))}
      WHERE r.principal = v.principal AND r.idem_key = v.idem_key AND r.state = 'in_progress' AND r.holder IS NOT DISTINCT FROM ${holder}
      RETURNING r.principal, r.idem_key`.compile(trx),
    read: ({ rows }) => {
      const made = new Set(rows.map((r) => rowKey(r.principal as string, r.idem_key as string)));
      effects.forEach((e, i) => settle[i]!.resolve(made.has(rowKey(e.principal, e.key))));
    },
    failed: (reason) => settle.forEach((w) => w.reject(reason)),
  });
  const markCommitted = (trx: Transaction<DB>, effect: Effect): Promise<boolean> =>
    new Promise<boolean>((resolve, reject) => {
      let pending = pendingEffects.get(trx);
      if (!pending) {
        const fresh = { effects: [] as Effect[], settle: [] as { resolve(made: boolean): void; reject(err: unknown): void }[] };
        pendingEffects.set(trx, (pending = fresh));
        const take = (): Step<void> | null => {
          if (pendingEffects.get(trx) !== fresh) return null;
          pendingEffects.delete(trx);
          return effectsStep(trx, fresh);
        };
        deferStep(trx, take);
        setImmediate(() => {
          const step = take();
          // Its failure reaches the effects' callers through `failed`.
          if (step) runStep(trx, step).catch(() => undefined);
        });
      }
      pending.effects.push(effect);
      pending.settle.push({ resolve, reject });
    });

  return {
    async claim(principal, key, requestHash, route) {
      const now = clock.now();
      if (await claimNew({ principal, idem_key: key, method: route.method, path: route.path, request_hash: requestHash, state: 'in_progress', created_at: now, holder })) {
        return { kind: 'new' };
      }

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
      // Another process took the claim over (this one was thought dead): its retry makes the effect, not this request.
      if (!(await markCommitted(trx, { principal, key, ref }))) throw new ClaimTakenOver();
      deps.faults?.duringEffect?.(principal, key);
    },

    async complete(principal, key, response) {
      deps.faults?.beforeComplete?.(principal, key);
      await storeAnswer({ principal, key, response, at: clock.now() });
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

