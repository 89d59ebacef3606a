// A Kysely dialect over PGlite that runs one connection (query or whole transaction) at a time.
// PGlite is a single backend session, so without this a BEGIN from one caller would swallow another's queries.
import diagnostics from 'node:diagnostics_channel';
import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import {
  CompiledQuery,
  IdentifierNode,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  RawNode,
  createQueryId,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { arrayLiteral } from './array-literal.ts';
import { MessageWriter, readResults } from './pglite-wire.ts';
import { AsyncMutex, type TurnOptions, type TurnPriority } from './turns.ts';

/** One turn of a holder of the connection, published on PGLITE_HOLDS_CHANNEL when it ends. */
export interface PGliteHold {
  /** The stack where the connection was asked for (`new Error().stack`, written out when first read): who held it. */
  stack: string;
  /** From asking for the connection to getting it, and from getting it to releasing it. */
  waitedMs: number;
  heldMs: number;
  /** A request's holder or background work's (turns.ts). */
  priority: TurnPriority;
}

/**
 * A diagnostics channel (node:diagnostics_channel) told every turn on the embedded database's one connection, with who
 * took it and for how long: what makes a placement wait (bench/orderbook-http.ts prints the long ones per scenario).
 * Nothing is measured, and no stack taken, while nobody subscribes.
 */
export const PGLITE_HOLDS_CHANNEL = 'svc:pglite:hold';
const holds = diagnostics.channel(PGLITE_HOLDS_CHANNEL);

/** Starts timing a turn asked for now; answers how to wrap its release so the turn is published when it ends. */
function watchHold(priority: TurnPriority): (release: () => void) => () => void {
  // Deep enough to get past Kysely's frames and ours in src/db to the caller.
  // The frames are taken now and written out only if a subscriber reads the stack: most turns are short and unread.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const asker = new Error();
  Error.stackTraceLimit = limit;
  const asked = performance.now();
  return (release) => {
    const got = performance.now();
    let published = false;
    return () => {
      if (!published) {
        published = true;
        const heldMs = performance.now() - got;
        holds.publish({
          get stack() {
            return asker.stack ?? '';
          },
          waitedMs: got - asked,
          heldMs,
          priority,
        } satisfies PGliteHold);
      }
      release();
    };
  };
}

/** How long a chain of the database's holders may run before a hand-over lets the event loop turn (turns.ts). */
const TURN_BUDGET_MS = 8;

export interface PGliteDialectConfig {
  /** The PGlite instance (or a promise of it) to run queries on. */
  database: PGlite | Promise<PGlite>;
  /** Close the PGlite instance when the Kysely instance is destroyed (default true). */
  closeOnDestroy?: boolean;
  /** How the holders of the one connection take turns (turns.ts); the turn budget is TURN_BUDGET_MS unless given. */
  turns?: TurnOptions;
}

/**
 * Kysely dialect for PGlite. Every connection Kysely acquires holds the database's one mutex until it is
 * released, so a transaction (acquire → BEGIN … COMMIT/ROLLBACK → release) runs alone and no other
 * query interleaves into it. Plain queries take the mutex too, one at a time.
 *
 * DEADLOCK TRAP: inside `db.transaction().execute(async (trx) => …)` every query must use `trx`. A query
 * on `db` there asks for a second connection, which waits for the mutex the transaction holds, and the
 * transaction waits for that query: both hang forever. The same holds inside `db.connection()`, and a
 * `db.startTransaction()` that is never committed or rolled back blocks every later query. (On
 * PostgreSQL the mistake runs the query outside the transaction, or waits on the transaction's row
 * locks: still a bug, just a quieter one.)
 */
export class PGliteDialect implements Dialect {
  readonly #session: PGliteSession;

  constructor(config: PGliteDialectConfig) {
    this.#session = new PGliteSession(config);
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.#session, 'foreground');
  }

  /**
   * The same database for background work (folds, keepers, upkeep), for a Kysely of its own: its holders wait for the
   * requests' (turns.ts). That Kysely's destroy leaves the database open; this one's closes it.
   */
  background(): Dialect {
    return {
      createAdapter: () => this.createAdapter(),
      createDriver: () => new PGliteDriver(this.#session, 'background'),
      createIntrospector: (db) => this.createIntrospector(db),
      createQueryCompiler: () => this.createQueryCompiler(),
    };
  }

  /** A request's holder will ask for the connection soon: background holders wait for it (AsyncMutex.expect). */
  expect(): () => void {
    return this.#session.mutex.expect();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

/** Statements worth keeping prepared: the ones a service runs again and again (not DDL, not transaction control). */
const PREPARABLE = /^\s*(select|insert|update|delete|with|values)\b/i;
/** Statements after which every kept statement is forgotten: they may change what a kept one reads or returns. */
const SCHEMA_CHANGE = /^\s*(create|alter|drop|truncate|comment|reindex|grant|revoke|import)\b/i;
/** Transaction control: sent as one Query message (the simple protocol) through pglite-wire.ts, never kept. */
const TRANSACTION_CONTROL = /^\s*(begin|start\s+transaction|commit|end|rollback|savepoint|release)\b/i;
/** PostgreSQL's box[] type: its array literal separates elements with `;`. */
const BOX_ARRAY = 1020;
/** Prepared statements kept at most; past it the least recently used is closed. */
const MAX_PREPARED = 500;
/** PostgreSQL's refusal to run a kept statement whose result type changed under it (a column added to a `SELECT *`). */
const PLAN_CHANGED = '0A000';

/** Joins protocol messages into one buffer: PGlite runs them in one call, up to and including the Sync. */
function concatMessages(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A transaction's deferred BEGIN, taken by the exchange that sends it (null: none to send). */
type TakeBegin = () => string | null;
const NO_BEGIN: TakeBegin = () => null;

/**
 * Named prepared statements on PGlite's one session. `PGlite.query()` parses, describes and plans every statement again
 * and talks to the backend six times per statement; a kept statement is parsed and described once, and each run is one
 * exchange (bind, describe, execute, sync), three to five times cheaper (docs/orderbook.md "What the numbers say").
 * Their runs' messages are written and their answers read by pglite-wire.ts (PGlite's own protocol code cost a fifth of
 * the order path), each value through the instance's own serializers and parsers: the rows are those query() gives.
 */
class PreparedStatements {
  private readonly kept = new Map<string, { name: string; types: number[] }>();
  private readonly writer = new MessageWriter();
  private readonly elements = new Map<number, number>();
  private next = 0;

  constructor(private readonly pglite: PGlite) {}

  /**
   * `begin` answers a transaction's deferred BEGIN if it is still to be sent (PGliteConnection): asked when the
   * statement is written, right before its exchange, and then written first in it.
   */
  async run<R>(text: string, params: readonly unknown[], begin: TakeBegin = NO_BEGIN): Promise<Results<R>> {
    try {
      return await this.runKept<R>(text, params, begin);
    } catch (err) {
      if ((err as { code?: unknown }).code !== PLAN_CHANGED) throw err;
      // The schema changed under the kept statement: prepare it again, once.
      await this.forget(text);
      return this.runKept<R>(text, params, begin);
    }
  }

  /**
   * Several statements in one exchange (src/db/pipeline.ts): each prepared (kept) first, then all bound and executed
   * behind one Sync; answers their results in order. A backend error fails the call (after the Sync: the statements
   * after the failing one did not run).
   */
  async runMany(statements: readonly { text: string; params: readonly unknown[] }[], begin: TakeBegin = NO_BEGIN): Promise<Results[]> {
    const prepared: { name: string; types: number[] }[] = [];
    for (const { text } of statements) prepared.push(await this.prepared(text));
    // Written in one go: a query of the same connection run meanwhile (a promise of the same transaction) writes its own.
    const began = this.writeBegin(begin);
    statements.forEach(({ params }, i) => this.writer.bindAndExecute(prepared[i]!.name, this.values(prepared[i]!, params)));
    this.writer.sync();
    const results = await this.exchangeKept(this.writer.take(), began);
    if (results.length !== statements.length) throw new Error(`a pipeline of ${statements.length} statements answered ${results.length} results`);
    return results;
  }

  /** Forgets every kept statement (after a schema change). */
  async clear(): Promise<void> {
    if (this.kept.size === 0) return;
    this.kept.clear();
    await this.pglite.exec('DEALLOCATE ALL');
  }

  private async runKept<R>(text: string, params: readonly unknown[], begin: TakeBegin): Promise<Results<R>> {
    const statement = await this.prepared(text);
    const began = this.writeBegin(begin);
    this.writer.bindAndExecute(statement.name, this.values(statement, params));
    this.writer.sync();
    return (await this.exchangeKept(this.writer.take(), began))[0] as Results<R>;
  }

  /** A statement without parameters in one Query message (transaction control: BEGIN, COMMIT, SAVEPOINT…). */
  async runSimple(text: string, begin: TakeBegin = NO_BEGIN): Promise<Results> {
    const began = this.writeBegin(begin);
    this.writer.query(text);
    return (await this.exchangeKept(this.writer.take(), began))[0]!;
  }

  /** Writes the deferred BEGIN first, if there is one still to send; answers whether it did. */
  private writeBegin(begin: TakeBegin): boolean {
    const text = begin();
    if (text !== null) this.writer.query(text);
    return text !== null;
  }

  /**
   * Runs bound statements through their Sync and reads their results (pglite-wire.ts); a backend error is thrown after
   * the Sync ran. A BEGIN written first (`began`) answers a result of its own, left out.
   */
  private async exchangeKept(message: Uint8Array, began = false): Promise<Results[]> {
    const answer = await this.pglite._runExclusiveQuery(async () => {
      const chunks: Uint8Array[] = [];
      // The chunk is a view of the backend's buffer, written over by the next one: kept as a copy.
      await this.pglite.execProtocolRawStream(message, { syncToFs: false, onRawData: (chunk) => void chunks.push(chunk.slice()) });
      return chunks.length === 1 ? chunks[0]! : concatMessages(chunks);
    });
    if (!this.pglite.isInTransaction()) await this.pglite.syncToFs();
    const results = readResults(answer, this.pglite.parsers);
    return began ? results.slice(1) : results;
  }

  /** The parameters as the statement's types serialise them, as query() would. */
  private values(statement: { types: number[] }, params: readonly unknown[]): (string | null)[] {
    return params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const type = statement.types[i]!;
      const element = Array.isArray(value) ? this.elements.get(type) : undefined;
      if (element !== undefined) return arrayLiteral(value as unknown[], this.pglite.serializers[element] as ((v: unknown) => string) | undefined, type === BOX_ARRAY ? ';' : ',');
      const serializer = this.pglite.serializers[type];
      return serializer ? (serializer(value) as string) : String(value);
    });
  }

  /** The element type of each array type (read once; an array type made later goes through PGlite's own serializer). */
  async init(): Promise<void> {
    // As PGlite maps them (its initArrayTypes): each element type's array type.
    const { rows } = await this.pglite.query<{ array: number; element: number }>(`SELECT e.typarray::int AS array, e.oid::int AS element
      FROM pg_catalog.pg_type a JOIN pg_catalog.pg_type e ON e.oid = a.typelem WHERE a.typcategory = 'A' AND e.typarray <> 0 GROUP BY e.oid, e.typarray`);
    for (const r of rows) this.elements.set(r.array, r.element);
  }

  private async prepared(text: string): Promise<{ name: string; types: number[] }> {
    const known = this.kept.get(text);
    if (known) {
      // Most recently used last: the first entry is the one to close when the cache is full.
      this.kept.delete(text);
      this.kept.set(text, known);
      return known;
    }
    const { serialize } = protocol;
    if (this.kept.size >= MAX_PREPARED) await this.forget(this.kept.keys().next().value!);
    const name = `svc_${this.next++}`;
    const described = await this.exchange([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]);
    const statement = { name, types: parse.parseDescribeStatementResults(described) };
    this.kept.set(text, statement);
    return statement;
  }

  private async forget(text: string): Promise<void> {
    const statement = this.kept.get(text);
    if (!statement) return;
    this.kept.delete(text);
    await this.exchange([protocol.serialize.close({ type: 'S', name: statement.name }), protocol.serialize.sync()]);
  }

  /** One call into the backend with the messages through their Sync; a backend error is thrown after the Sync ran. */
  private exchange(parts: readonly Uint8Array[]): ReturnType<PGlite['execProtocolStream']> {
    return this.pglite._runExclusiveQuery(() => this.pglite.execProtocolStream(concatMessages(parts), { syncToFs: false }));
  }
}

/** What every driver over one PGlite shares: the instance, its kept statements, and the mutex of its one session. */
class PGliteSession {
  pglite: PGlite | undefined;
  statements: PreparedStatements | undefined;
  readonly mutex: AsyncMutex;
  #init: Promise<void> | undefined;

  constructor(readonly config: PGliteDialectConfig) {
    this.mutex = new AsyncMutex({ turnBudgetMs: TURN_BUDGET_MS, ...config.turns });
  }

  init(): Promise<void> {
    return (this.#init ??= (async () => {
      this.pglite = await this.config.database;
      this.statements = new PreparedStatements(this.pglite);
      await this.statements.init();
    })().catch((err: unknown) => {
      this.#init = undefined;
      throw err;
    }));
  }
}

class PGliteDriver implements Driver {
  constructor(
    private readonly session: PGliteSession,
    private readonly priority: TurnPriority,
  ) {}

  init(): Promise<void> {
    return this.session.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const watched = holds.hasSubscribers ? watchHold(this.priority) : null;
    const unlock = await this.session.mutex.lock(this.priority);
    const release = watched ? watched(unlock) : unlock;
    const { pglite, statements } = this.session;
    if (!pglite || !statements) {
      release();
      throw new Error('PGlite driver is not initialised or has been destroyed');
    }
    return new PGliteConnection(pglite, statements, release);
  }

  /** Deferred: the BEGIN goes with the transaction's first statement, in its exchange (PGliteConnection). */
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let text = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      text = 'start transaction';
      if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) text += ` ${settings.accessMode}`;
    }
    (connection as PGliteConnection).deferBegin(text);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // A transaction that ran no statement was never begun: nothing to commit.
    if ((connection as PGliteConnection).dropBegin()) return;
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if ((connection as PGliteConnection).dropBegin()) return;
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(
    connection: DatabaseConnection,
    savepointName: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await connection.executeQuery(compileQuery(savepointCommand('savepoint', savepointName), createQueryId()));
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    savepointName: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await connection.executeQuery(compileQuery(savepointCommand('rollback to', savepointName), createQueryId()));
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    savepointName: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await connection.executeQuery(compileQuery(savepointCommand('release', savepointName), createQueryId()));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof PGliteConnection) connection.release();
  }

  async destroy(): Promise<void> {
    if (this.priority === 'background') return;
    // Wait for whoever holds the mutex so we never close PGlite under a running transaction.
    const release = await this.session.mutex.lock();
    try {
      const pglite = this.session.pglite;
      this.session.pglite = undefined;
      if (pglite && (this.session.config.closeOnDestroy ?? true) && !pglite.closed) await pglite.close();
    } finally {
      release();
    }
  }
}

/**
 * One holder's turn on the session. A transaction's BEGIN is deferred (beginTransaction): it is written ahead of the
 * transaction's first statement and sent in the same exchange, one call into the backend fewer per transaction
 * (docs/orderbook.md "Round trips").
 */
class PGliteConnection implements DatabaseConnection {
  #begin: string | null = null;

  constructor(
    private readonly pglite: PGlite,
    private readonly statements: PreparedStatements,
    readonly release: () => void,
  ) {}

  /** The transaction's BEGIN, to be sent with its first statement. */
  deferBegin(text: string): void {
    this.#begin = text;
  }

  /** Forgets a BEGIN never sent (the transaction ran no statement); answers whether there was one. */
  dropBegin(): boolean {
    const pending = this.#begin !== null;
    this.#begin = null;
    return pending;
  }

  /** The BEGIN still to send, taken by the exchange that sends it (null: sent already, or no transaction). */
  readonly #takeBegin = (): string | null => {
    const text = this.#begin;
    this.#begin = null;
    return text;
  };

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = compiledQuery;
    // Exactly one statement per call: the extended protocol runs one, and the simple one is given a single command.
    const kept = PREPARABLE.test(sql);
    const simple = !kept && parameters.length === 0 && TRANSACTION_CONTROL.test(sql) && !sql.includes(';');
    // PGlite's own query() cannot carry the BEGIN: it goes alone first.
    const alone = !kept && !simple ? this.#takeBegin() : null;
    if (alone !== null) await this.statements.runSimple(alone);
    const result = kept
      ? await this.statements.run<R>(sql, parameters, this.#takeBegin)
      : simple
        ? ((await this.statements.runSimple(sql, this.#takeBegin)) as Results<R>)
        : await this.pglite.query<R>(sql, [...parameters]);
    if (SCHEMA_CHANGE.test(sql)) await this.statements.clear();
    return queryResultOf<R>(result, result.affectedRows);
  }

  /**
   * A pipeline (src/db/pipeline.ts) of kept statements in one exchange with the backend; null when one of them is not a
   * statement worth keeping (the caller runs them in turn).
   */
  async executePipeline(queries: readonly CompiledQuery[]): Promise<PromiseSettledResult<QueryResult<unknown>>[] | null> {
    if (!queries.every((q) => PREPARABLE.test(q.sql))) return null;
    try {
      const results = await this.statements.runMany(
        queries.map((q) => ({ text: q.sql, params: q.parameters })),
        this.#takeBegin,
      );
      // affectedRows adds up over the results: each one's own count is its rowCount.
      return results.map((r) => ({ status: 'fulfilled', value: queryResultOf(r, r.rowCount) }));
    } catch (reason) {
      return queries.map(() => ({ status: 'rejected', reason }));
    }
  }

  // PGlite has no cursor API, so this runs the query whole and yields it in chunks: it gives the
  // streaming interface, not bounded memory. The mutex stays held until the iteration ends.
  async *streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    const size = chunkSize ?? 100;
    if (!Number.isInteger(size) || size <= 0) throw new Error('chunkSize must be a positive integer');
    const { rows } = await this.executeQuery<R>(compiledQuery);
    for (let i = 0; i < rows.length; i += size) {
      yield { rows: rows.slice(i, i + size) };
    }
  }
}

function queryResultOf<R>(result: Results<unknown>, affected: number | undefined): QueryResult<R> {
  const command = result.command;
  const changes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return { rows: result.rows as R[], ...(changes ? { numAffectedRows: BigInt(affected ?? 0) } : {}) };
}

// Kysely does not export its savepoint parser; this builds the same node (the identifier node quotes the name).
function savepointCommand(command: string, savepointName: string): RawNode {
  return RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(savepointName)]);
}
