// A Kysely dialect over PGlite that runs one connection (query or whole transaction) at a time.
// PGlite is a single backend session, so without this a BEGIN from one caller would swallow another's queries.
import type { PGlite } from '@electric-sql/pglite';
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

/**
 * A FIFO async mutex. `lock()` resolves with a release function once every earlier holder has released.
 */
export class AsyncMutex {
  private tail: Promise<void> = Promise.resolve();

  lock(): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const acquired = this.tail.then(() => {
      let done = false;
      return () => {
        // A double release must not free the next holder's turn.
        if (!done) {
          done = true;
          release();
        }
      };
    });
    this.tail = this.tail.then(() => released);
    return acquired;
  }
}

export interface PGliteDialectConfig {
  /** The PGlite instance (or a promise of it) to run queries on. */
  database: PGlite | Promise<PGlite>;
  /** Close the PGlite instance when the Kysely instance is destroyed (default true). */
  closeOnDestroy?: boolean;
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
  constructor(private readonly config: PGliteDialectConfig) {}

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.config);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  private pglite: PGlite | undefined;
  private readonly mutex = new AsyncMutex();

  constructor(private readonly config: PGliteDialectConfig) {}

  async init(): Promise<void> {
    this.pglite = await this.config.database;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.mutex.lock();
    if (!this.pglite) {
      release();
      throw new Error('PGlite driver is not initialised or has been destroyed');
    }
    return new PGliteConnection(this.pglite, release);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let text = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      text = 'start transaction';
      if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) text += ` ${settings.accessMode}`;
    }
    await connection.executeQuery(CompiledQuery.raw(text));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
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
    // Wait for whoever holds the mutex so we never close PGlite under a running transaction.
    const release = await this.mutex.lock();
    try {
      const pglite = this.pglite;
      this.pglite = undefined;
      if (pglite && (this.config.closeOnDestroy ?? true) && !pglite.closed) await pglite.close();
    } finally {
      release();
    }
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(
    private readonly pglite: PGlite,
    readonly release: () => void,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // PGlite's query() uses the extended protocol: exactly one statement per call.
    const result = await this.pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    const command = result.command;
    const changes =
      command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return {
      rows: result.rows,
      ...(changes ? { numAffectedRows: BigInt(result.affectedRows ?? 0) } : {}),
    };
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

// Kysely does not export its savepoint parser; this builds the same node (the identifier node quotes the name).
function savepointCommand(command: string, savepointName: string): RawNode {
  return RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(savepointName)]);
}
