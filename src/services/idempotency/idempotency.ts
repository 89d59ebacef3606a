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
 *
 * Answered with the effect (a capability's answerWithEffect; place-order): no claim is written before the request runs.
 * The process holds the key in memory while it runs (a second request with it meanwhile is IDEMPOTENCY_IN_PROGRESS),
 * and the record goes in with the effect's transaction, answer included (recordAnswer): one row written once, where a
 * claim is three writes in three transactions. A record another process wrote first (a race on one key) makes the
 * effect's transaction fail (ClaimTakenOver) and the request answers what that record says. A crash before the commit
 * leaves nothing, so the retry runs; after it, the retry replays the stored answer (docs/http.md "Idempotency").
 */
import { sql, type CompiledQuery, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
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

/**
 * Records, inside the effect's own transaction, that the request under this key made `ref` (an order id…). `output`
 * is what the handler will answer, for a capability whose answer is stored with its effect (answerWithEffect).
 */
export interface EffectRecorder {
  (trx: Transaction<DB>, ref: string, output?: unknown): Promise<void>;
  /**
   * answerWithEffect: whether another request's record holds the key already (a retry of a request that was answered),
   * read with the transaction's next pipeline, before the effect is made. The request then answers what the record says.
   */
  alreadyRecorded?(trx: Transaction<DB>): Promise<boolean>;
}

/** A request answered with its effect: who sent it under which key, for which route, with which fingerprint. */
export interface KeyedRequest {
  principal: string;
  key: string;
  requestHash: string;
  route: { method: string; path: string };
}

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
  /** Holds the key in this process while its request runs (answers how to let go); IDEMPOTENCY_IN_PROGRESS when a request with it runs here already. */
  hold(principal: string, key: string): () => void;
  /**
   * What a key's record says, for a request answered with its effect: null when there is none (the request runs),
   * else as claim() answers an existing record (a replay, a committed effect, or IDEMPOTENCY_KEY_REUSED or
   * IDEMPOTENCY_IN_PROGRESS thrown; an in-progress claim of a dead process is taken over and answers 'new').
   */
  find(request: KeyedRequest): Promise<Claim | null>;
  /**
   * Writes the key's record inside the effect's transaction: its effect and, when given, its answer (state done; else
   * committed). Throws ClaimTakenOver (failing the transaction) when another request's record is there first.
   */
  recordAnswer(trx: Transaction<DB>, request: KeyedRequest, ref: string, response: StoredResponse | null): Promise<void>;
  /**
   * Whether the key has a record other than this process's own claim in progress, read in `trx` with its next pipeline
   * (the records of one transaction's requests in one statement).
   */
  recorded(trx: Transaction<DB>, request: KeyedRequest): Promise<boolean>;
  /** Stores the answer of a request that recorded no effect (a refusal), unless another request's record is there first. */
  storeAnswer(request: KeyedRequest, response: StoredResponse): Promise<void>;
  /** Where a test simulates a crash after the request's effect committed and before it was answered. */
  beforeAnswer(principal: string, key: string): void;
  /**
   * Forgets every claim still in progress, with no committed effect: only for a start-up that knows no other process
   * can hold one (an embedded database is locked to one process), so a crash's retries need not wait out the lease.
   */
  releaseOrphanedClaims(): Promise<number>;
}

export const isStorable = (status: number): boolean => status < 500 && status !== 429;

/** Another request with the key is still running. */
const inProgress = (): ProblemError =>
  problem('IDEMPOTENCY_IN_PROGRESS', 'a request with this Idempotency-Key is still being processed; retry shortly', { headers: { 'Retry-After': '1' } });

interface Effect {
  principal: string;
  key: string;
  ref: string;
}

const rowKey = (principal: string, key: string): string => `${principal}\u0000${key}`;

/** The join that narrows `idempotency_records r` to these keys (one statement text for any number of them). */
const recordsOf = (keys: readonly { principal: string; key: string }[]) =>
  sql`JOIN ${unnestRows('k', ['principal', 'idem_key'], keys.map((k) => [k.principal, k.key]))} ON r.principal = k.principal AND r.idem_key = k.idem_key`;

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
  const answerClaims = grouped(async (answers: { principal: string; key: string; response: StoredResponse; at: Date }[]) => {
    const cells = answers.map((a) => [a.principal, a.key, a.response.status, JSON.stringify(a.response.body ?? null), JSON.stringify(a.response.headers), a.at]);
    await sql`UPDATE idempotency_records AS r
      SET state = 'done', status_code = v.status::int, response_body = v.body::json, response_headers = v.headers::json, completed_at = v.at::timestamptz
      FROM ${unnestRows('v', ['principal', 'idem_key', 'status', 'body', 'headers', 'at'], cells)}
      WHERE r.principal = v.principal AND r.idem_key = v.idem_key`.execute(db);
    return answers.map(() => undefined);
  });

  // The records one transaction writes (a batch of orders) go into one statement when they are recorded together:
  // sent with the transaction's next pipeline (a batch's writes), or on their own a turn of the event loop later when
  // none comes first (src/db/pipeline.ts deferStep). Each entry learns whether its row was the one written.
  const markCommitted = perTransaction<Effect>((trx, effects) =>
    sql`UPDATE idempotency_records AS r
      SET state = 'committed', effect_ref = v.ref
      FROM ${unnestRows('v', ['principal', 'idem_key', 'ref'], effects.map((e) => [e.principal, e.key, e.ref]))}
      WHERE r.principal = v.principal AND r.idem_key = v.idem_key AND r.state = 'in_progress' AND r.holder IS NOT DISTINCT FROM ${holder}
      RETURNING r.principal, r.idem_key`.compile(trx),
  );
  // A record answered with its effect: a new row, or this process's in-progress claim of a dead one taken over.
  const insertAnswered = perTransaction<Effect & { request: KeyedRequest; response: StoredResponse | null; at: Date }>((trx, rows) => {
    const columns = ['principal', 'idem_key', 'method', 'path', 'request_hash', 'state', 'at', 'ref', 'status', 'body', 'headers'] as const;
    const cells = rows.map((r): Cell[] => [
      r.principal,
      r.key,
      r.request.route.method,
      r.request.route.path,
      r.request.requestHash,
      r.response ? 'done' : 'committed',
      r.at,
      r.ref,
      r.response?.status ?? null,
      r.response ? JSON.stringify(r.response.body ?? null) : null,
      r.response ? JSON.stringify(r.response.headers) : null,
    ]);
    return sql`INSERT INTO idempotency_records AS r (principal, idem_key, method, path, request_hash, state, created_at, completed_at, holder, effect_ref, status_code, response_body, response_headers)
      SELECT u.principal, u.idem_key, u.method, u.path, u.request_hash, u.state, u.at::timestamptz, CASE WHEN u.state = 'done' THEN u.at::timestamptz END, ${holder}::text,
        u.ref, u.status::int, u.body::json, u.headers::json
      FROM ${unnestRows('u', columns, cells)}
      ON CONFLICT (principal, idem_key) DO UPDATE SET state = EXCLUDED.state, completed_at = EXCLUDED.completed_at, effect_ref = EXCLUDED.effect_ref,
        status_code = EXCLUDED.status_code, response_body = EXCLUDED.response_body, response_headers = EXCLUDED.response_headers
      WHERE r.state = 'in_progress' AND r.holder IS NOT DISTINCT FROM EXCLUDED.holder AND r.request_hash = EXCLUDED.request_hash
      RETURNING r.principal, r.idem_key`.compile(trx);
  });
  const readRecorded = perTransaction<{ principal: string; key: string }>(
    (trx, keys) => sql`SELECT r.principal, r.idem_key FROM idempotency_records r
      ${recordsOf(keys)}
      WHERE NOT (r.state = 'in_progress' AND r.holder IS NOT DISTINCT FROM ${holder})`.compile(trx),
  );
  // Keys whose requests run in this process under answerWithEffect.
  const held = new Set<string>();

  /** What an existing record answers a request with the same key (claim, find). */
  const answerOfExisting = async (existing: Selectable<IdempotencyRecordsTable>, requestHash: string, now: Date): Promise<Claim> => {
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
      .where('principal', '=', existing.principal)
      .where('idem_key', '=', existing.idem_key)
      .where('state', '=', 'in_progress')
      .where((eb) => eb.or([eb('created_at', '<', staleBefore), holderDead]))
      .returning('idem_key')
      .executeTakeFirst();
    if (taken) return { kind: 'new' };
    throw inProgress();
  };
  // The records of concurrent requests answered with their effects, read in one statement.
  const findRecords = grouped(async (keys: { principal: string; key: string }[]) => {
    const { rows } = await sql<Selectable<IdempotencyRecordsTable>>`SELECT r.* FROM idempotency_records r
      ${recordsOf(keys)}`.execute(db);
    const byKey = new Map(rows.map((r) => [rowKey(r.principal, r.idem_key), r]));
    return keys.map((k) => byKey.get(rowKey(k.principal, k.key)) ?? null);
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
      return answerOfExisting(existing, requestHash, now);
    },

    async commitEffect(trx, principal, key, ref) {
      // Another process took the claim over (this one was thought dead): its retry makes the effect, not this request.
      if (!(await markCommitted(trx, { principal, key, ref }))) throw new ClaimTakenOver();
      deps.faults?.duringEffect?.(principal, key);
    },

    async complete(principal, key, response) {
      deps.faults?.beforeComplete?.(principal, key);
      await answerClaims({ principal, key, response, at: clock.now() });
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

    hold(principal, key) {
      const k = rowKey(principal, key);
      if (held.has(k)) throw inProgress();
      held.add(k);
      return () => held.delete(k);
    },

    async find(request) {
      const existing = await findRecords({ principal: request.principal, key: request.key });
      return existing ? answerOfExisting(existing, request.requestHash, clock.now()) : null;
    },

    recorded(trx, request) {
      return readRecorded(trx, { principal: request.principal, key: request.key });
    },

    async recordAnswer(trx, request, ref, response) {
      const { principal, key } = request;
      if (!(await insertAnswered(trx, { principal, key, ref, request, response, at: clock.now() }))) throw new ClaimTakenOver();
      deps.faults?.duringEffect?.(principal, key);
    },

    async storeAnswer(request, response) {
      const now = clock.now();
      await db
        .insertInto('idempotency_records')
        .values({
          principal: request.principal,
          idem_key: request.key,
          method: request.route.method,
          path: request.route.path,
          request_hash: request.requestHash,
          state: 'done',
          created_at: now,
          completed_at: now,
          holder,
          status_code: response.status,
          response_body: JSON.stringify(response.body ?? null),
          response_headers: JSON.stringify(response.headers),
        })
        .onConflict((oc) => oc.columns(['principal', 'idem_key']).doNothing())
        .execute();
    },

    beforeAnswer(principal, key) {
      deps.faults?.beforeComplete?.(principal, key);
    },

    async purgeOlderThan(hours) {
      const before = new Date(clock.now().getTime() - hours * 3_600_000);
      const result = await db.deleteFrom('idempotency_records').where('created_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows ?? 0);
    },
  };
}


/**
 * Rows of one transaction written by one statement: `statement` makes it from the rows recorded together, which is
 * sent with the transaction's next pipeline (deferStep) or alone a turn of the event loop later; each recorder learns
 * whether its row came back from the statement's RETURNING (principal, idem_key).
 */
function perTransaction<E extends { principal: string; key: string }>(statement: (trx: Transaction<DB>, rows: E[]) => CompiledQuery): (trx: Transaction<DB>, row: E) => Promise<boolean> {
  type Pending = { rows: E[]; settle: { resolve(made: boolean): void; reject(err: unknown): void }[] };
  const pending = new WeakMap<Transaction<DB>, Pending>();
  const stepOf = (trx: Transaction<DB>, { rows, settle }: Pending): Step<void> => ({
    query: statement(trx, rows),
    read: ({ rows: returned }) => {
      const made = new Set(returned.map((r) => rowKey(r.principal as string, r.idem_key as string)));
      rows.forEach((e, i) => settle[i]!.resolve(made.has(rowKey(e.principal, e.key))));
    },
    failed: (reason) => settle.forEach((w) => w.reject(reason)),
  });
  return (trx, row) =>
    new Promise<boolean>((resolve, reject) => {
      let mine = pending.get(trx);
      if (!mine) {
        const fresh: Pending = { rows: [], settle: [] };
        pending.set(trx, (mine = fresh));
        const take = (): Step<void> | null => {
          if (pending.get(trx) !== fresh) return null;
          pending.delete(trx);
          return stepOf(trx, fresh);
        };
        deferStep(trx, take);
        setImmediate(() => {
          const step = take();
          // Its failure reaches the recorders through `failed`.
          if (step) runStep(trx, step).catch(() => undefined);
        });
      }
      mine.rows.push(row);
      mine.settle.push({ resolve, reject });
    });
}
