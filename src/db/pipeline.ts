/**
 * Pipelined statements (docs/orderbook.md "Round trips"): statements of one transaction that do not need each other's
 * answers go to the database together and are answered in order. The database runs them one after another, each with
 * its own snapshot, exactly as if each had been awaited before the next was sent; only the waiting between them is
 * gone. On PostgreSQL the pool's connections run in pipeline mode (node-postgres `pipeline: true`), so the statements
 * leave in one write and their answers come back in one; PGlite runs them in turn (it has no network to save).
 * If one fails, the ones after it fail too inside a transaction (it is aborted); the first failure is thrown.
 */
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult, type Transaction, type TransactionSettings } from 'kysely';
import type { DB } from './schema.ts';
import { wrapDialect } from './wrap-dialect.ts';

/** Where a pipeline runs: the database, or an open transaction (src/db/index.ts Executor). */
type Executor = Kysely<DB> | Transaction<DB>;

const STATEMENTS = Symbol('svc.pipelined-statements');

type Carrier = CompiledQuery & { [STATEMENTS]?: readonly CompiledQuery[] };

/** A statement and how to read its answer (which may refuse it by throwing): what a pipeline is made of. */
export interface Step<T> {
  query: CompiledQuery;
  read(result: QueryResult<Record<string, unknown>>): T;
  /** Told why, when its answer will not be read (its statement, or one before it, failed or was refused). */
  failed?(reason: unknown): void;
}

/**
 * Statements a service leaves for a transaction's next pipeline: `take` is asked for its step when the next
 * runSteps or runStep on that transaction starts, and that step goes first (null: it was sent otherwise meanwhile,
 * e.g. by a fallback of the service's own). The Idempotency-Key effects of a batch of orders go out this way with
 * the batch's first writes.
 */
const deferred = new WeakMap<object, (() => Step<unknown> | null)[]>();

export function deferStep(executor: Executor, take: () => Step<unknown> | null): void {
  const list = deferred.get(executor);
  if (list) list.push(take);
  else deferred.set(executor, [take]);
}

function takeDeferred(executor: Executor): Step<unknown>[] {
  const list = deferred.get(executor);
  if (!list) return [];
  deferred.delete(executor);
  return list.map((take) => take()).filter((s): s is Step<unknown> => s !== null);
}

type AnswerOf<X> = X extends Step<infer T> ? T : undefined;
type Answers<S extends readonly (Step<unknown> | null)[]> = { [K in keyof S]: AnswerOf<S[K]> };

/**
 * Runs the steps' statements in one pipeline, then reads their answers in order (a `null` step is skipped and
 * answered `undefined`): the first read that throws is what the call throws, as if the steps had run one by one.
 */
export async function runSteps<S extends readonly (Step<unknown> | null)[]>(executor: Executor, steps: S): Promise<Answers<S>> {
  const early = takeDeferred(executor);
  const present = [...early, ...steps.filter((s): s is Step<unknown> => s !== null)];
  let outcomes: PromiseSettledResult<QueryResult<Record<string, unknown>>>[];
  try {
    outcomes = await pipelined(
      executor,
      present.map((s) => s.query),
    );
  } catch (err) {
    for (const s of present) s.failed?.(err);
    throw err;
  }
  let next = 0;
  const readNext = (s: Step<unknown>) => {
    const at = next++;
    const outcome = outcomes[at]!;
    try {
      if (outcome.status === 'rejected') throw outcome.reason;
      return s.read(outcome.value);
    } catch (err) {
      for (const unread of present.slice(at)) unread.failed?.(err);
      throw err;
    }
  };
  for (const s of early) readNext(s);
  return steps.map((s) => (s === null ? undefined : readNext(s))) as Answers<S>;
}

/**
 * runSteps of `before` and then `steps`, in one pipeline, answering `steps`' answers only: a number of steps known at
 * run time (one per market of a batch) ahead of the ones whose answers are read.
 */
export async function runStepsAfter<S extends readonly (Step<unknown> | null)[]>(executor: Executor, before: readonly (Step<unknown> | null)[], steps: S): Promise<Answers<S>> {
  const answers = await runSteps(executor, [...before, ...steps]);
  return answers.slice(before.length) as unknown as Answers<S>;
}

/** One step, on its own (after any the transaction has deferred). */
export async function runStep<T>(executor: Executor, step: Step<T>): Promise<T> {
  const [answer] = await runSteps(executor, [step] as const);
  return answer as T;
}

/**
 * Sends `queries` in order on `executor`'s connection, together where the dialect can; answers each one's outcome in
 * order. Meant for a transaction: there a failure aborts it, and every statement after the failed one fails too.
 */
export async function pipelined(executor: Executor, queries: readonly CompiledQuery[]): Promise<PromiseSettledResult<QueryResult<Record<string, unknown>>>[]> {
  if (queries.length === 0) return [];
  if (queries.length === 1) return Promise.allSettled([executor.executeQuery<Record<string, unknown>>(queries[0]!)]);
  const carrier: Carrier = { ...CompiledQuery.raw(`/* ${queries.length} pipelined statements */`), [STATEMENTS]: queries };
  const result = await executor.executeQuery(carrier);
  return result.rows as unknown as PromiseSettledResult<QueryResult<Record<string, unknown>>>[];
}

/** A connection that runs a pipeline itself (PGlite: one exchange with the backend); null: it cannot, run them in turn. */
export interface PipelineConnection {
  executePipeline(queries: readonly CompiledQuery[]): Promise<PromiseSettledResult<QueryResult<unknown>>[] | null>;
}

/** The statements a pipeline carries (undefined: `q` is a statement of its own). */
export const pipelinedStatements = (q: CompiledQuery): readonly CompiledQuery[] | undefined => (q as Carrier)[STATEMENTS];

/**
 * `dialect`, its connections answering a pipeline of statements (`pipelined`): all sent at once when `concurrent` (a
 * PostgreSQL pool in pipeline mode), else one after another, or as the connection runs them (PipelineConnection).
 */
export function pipeliningDialect(dialect: Dialect, opts: { concurrent: boolean }): Dialect {
  return wrapDialect(dialect, (inner) => {
    const patched = new WeakSet<DatabaseConnection>();
    // A transaction's BEGIN not sent yet, per connection (concurrent only): it is sent with the transaction's first
    // statement, in the same write (SvcPgClient corks a tick's writes), so the server wakes once for both, not once for
    // the BEGIN alone while the statement is being built. A transaction that sends nothing sends no BEGIN either.
    const owed = new WeakMap<DatabaseConnection, TransactionSettings>();
    // A BEGIN sent and not yet answered, per connection (concurrent only): the transaction's first statement goes out
    // right behind it, and its answer is awaited with that statement's (or before COMMIT or ROLLBACK). A BEGIN fails
    // only when the connection does, and then the statement behind it fails too.
    const begun = new WeakMap<DatabaseConnection, Promise<void>>();
    const sendBegin = (conn: DatabaseConnection): void => {
      const settings = owed.get(conn);
      if (settings === undefined) return;
      owed.delete(conn);
      // The BEGIN's own statement comes back through conn.executeQuery: nothing is owed by then.
      const pending = inner.beginTransaction(conn, settings);
      pending.catch(() => undefined); // awaited by the statement behind it, or the transaction's end
      begun.set(conn, pending);
    };
    const settleBegin = async (conn: DatabaseConnection): Promise<void> => {
      const pending = begun.get(conn);
      if (!pending) return;
      begun.delete(conn);
      await pending;
    };
    const driver: Driver = {
      init: () => inner.init(),
      acquireConnection: async () => {
        const conn = await inner.acquireConnection();
        if (!patched.has(conn)) {
          patched.add(conn);
          const execute = conn.executeQuery.bind(conn);
          const run = async <R>(q: CompiledQuery): Promise<QueryResult<R>> => {
            const statements = (q as Carrier)[STATEMENTS];
            if (!statements) return execute<R>(q);
            const together = (conn as Partial<PipelineConnection>).executePipeline;
            const outcomes = (together ? await together.call(conn, statements) : null) ?? (opts.concurrent ? await Promise.allSettled(statements.map((s) => execute(s))) : await inTurn(statements, execute));
            return { rows: outcomes as unknown as R[] };
          };
          conn.executeQuery = async <R>(q: CompiledQuery): Promise<QueryResult<R>> => {
            sendBegin(conn);
            if (!begun.has(conn)) return run<R>(q);
            const running = run<R>(q);
            running.catch(() => undefined); // awaited below, after the BEGIN's own failure (which comes first)
            await settleBegin(conn);
            return running;
          };
        }
        return conn;
      },
      beginTransaction: async (conn, settings) => {
        if (!opts.concurrent) return inner.beginTransaction(conn, settings);
        owed.set(conn, settings ?? {});
      },
      commitTransaction: async (conn) => {
        // Nothing was sent: there is no transaction on the server to end.
        if (owed.delete(conn)) return;
        await settleBegin(conn);
        await inner.commitTransaction(conn);
      },
      rollbackTransaction: async (conn) => {
        if (owed.delete(conn)) return;
        await settleBegin(conn).catch(() => undefined);
        await inner.rollbackTransaction(conn);
      },
      releaseConnection: (conn) => inner.releaseConnection(conn),
      destroy: () => inner.destroy(),
    };
    return driver;
  });
}

/** One after another; after a failure the rest are not run (each is answered with that failure). */
async function inTurn<T>(statements: readonly CompiledQuery[], execute: (q: CompiledQuery) => Promise<T>): Promise<PromiseSettledResult<T>[]> {
  const out: PromiseSettledResult<T>[] = [];
  for (const s of statements) {
    const failed = out.find((o) => o.status === 'rejected');
    if (failed) {
      out.push(failed);
      continue;
    }
    try {
      out.push({ status: 'fulfilled', value: await execute(s) });
    } catch (reason) {
      out.push({ status: 'rejected', reason });
    }
  }
  return out;
}
