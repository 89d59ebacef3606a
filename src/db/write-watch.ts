/**
 * Write watch (docs/markets.md "Listing cache"): a Kysely dialect wrapper that tells listeners, right after a write to
 * a watched table is committed by this process, that the table changed — before the writer's own await resolves, so
 * the next read anywhere in the process sees the change. A write outside a transaction is reported once it returns;
 * a write inside one, once the transaction commits (a rollback reports nothing). Other processes' writes are the
 * job of the tables' NOTIFY triggers.
 */
import { pipelinedStatements } from './pipeline.ts';
import { wrapDialect } from './wrap-dialect.ts';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';

export type WriteListener = (tables: ReadonlySet<string>) => void;

export interface WriteWatch {
  /** Calls `listener` after every committed write to any of `tables`; returns how to stop. */
  on(tables: readonly string[], listener: WriteListener): () => void;
}

interface Registry extends WriteWatch {
  watched(): ReadonlySet<string>;
  emit(tables: ReadonlySet<string>): void;
}

export function createWriteRegistry(): Registry {
  const listeners = new Set<{ tables: ReadonlySet<string>; listener: WriteListener }>();
  let watched = new Set<string>();
  const rebuild = () => (watched = new Set([...listeners].flatMap((l) => [...l.tables])));
  return {
    on(tables, listener) {
      const entry = { tables: new Set(tables), listener };
      listeners.add(entry);
      rebuild();
      return () => {
        listeners.delete(entry);
        rebuild();
      };
    },
    watched: () => watched,
    emit(tables) {
      for (const l of listeners) if ([...tables].some((t) => l.tables.has(t))) l.listener(tables);
    },
  };
}

const WRITE_KINDS = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode']);
const RAW_WRITE = /\b(?:insert\s+into|update|delete\s+from)\s+"?([a-z_][a-z0-9_]*)"?/gi;
/** The tables a raw statement's text writes to, by text: the order loop runs the same few texts thousands of times. */
const rawWrites = new Map<string, string[]>();
const RAW_WRITES_KEPT = 2_000;

function rawWritten(text: string): string[] {
  let tables = rawWrites.get(text);
  if (!tables) {
    if (rawWrites.size >= RAW_WRITES_KEPT) rawWrites.clear();
    rawWrites.set(text, (tables = [...text.matchAll(RAW_WRITE)].map((m) => m[1]!.toLowerCase())));
  }
  return tables;
}

/** The watched tables a compiled query writes to (from the query tree, or the SQL text of a raw query). */
function writtenTables(q: CompiledQuery, watched: ReadonlySet<string>): string[] {
  if (watched.size === 0) return [];
  const node = q.query as { kind: string; into?: { table: { identifier: { name: string } } }; table?: unknown; from?: unknown };
  if (WRITE_KINDS.has(node.kind)) {
    const names: string[] = [];
    // A TableNode names its table; an AliasNode ('markets as m') wraps one; a FromNode (DELETE FROM) lists them.
    const collect = (t: unknown) => {
      const n = t as { kind?: string; node?: unknown; table?: { identifier?: { name?: string } }; froms?: unknown[] } | undefined;
      if (!n) return;
      if (n.kind === 'AliasNode') return collect(n.node);
      if (n.table?.identifier?.name) names.push(n.table.identifier.name);
      for (const f of n.froms ?? []) collect(f);
    };
    collect(node.into);
    collect(node.table);
    collect(node.from);
    return names.filter((n) => watched.has(n));
  }
  if (node.kind === 'RawNode') return rawWritten(q.sql).filter((n) => watched.has(n));
  return [];
}

class WatchingDriver implements Driver {
  private readonly state = new WeakMap<DatabaseConnection, { inTx: boolean; dirty: Set<string> }>();

  constructor(
    private readonly inner: Driver,
    private readonly registry: Registry,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const conn = await this.inner.acquireConnection();
    if (!this.state.has(conn)) {
      const st = { inTx: false, dirty: new Set<string>() };
      this.state.set(conn, st);
      const execute = conn.executeQuery.bind(conn);
      conn.executeQuery = async <R>(q: CompiledQuery): Promise<QueryResult<R>> => {
        const result = await execute<R>(q);
        const tables = (pipelinedStatements(q) ?? [q]).flatMap((s) => writtenTables(s, this.registry.watched()));
        if (tables.length > 0) {
          if (st.inTx) for (const t of tables) st.dirty.add(t);
          else this.registry.emit(new Set(tables));
        }
        return result;
      };
    }
    return conn;
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(conn, settings);
    const st = this.state.get(conn);
    if (st) {
      st.inTx = true;
      st.dirty.clear();
    }
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await this.inner.commitTransaction(conn);
    const st = this.state.get(conn);
    if (!st) return;
    st.inTx = false;
    if (st.dirty.size > 0) {
      const tables = new Set(st.dirty);
      st.dirty.clear();
      this.registry.emit(tables);
    }
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    const st = this.state.get(conn);
    if (st) {
      st.inTx = false;
      st.dirty.clear();
    }
    await this.inner.rollbackTransaction(conn);
  }

  releaseConnection(conn: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(conn);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** `dialect`, its driver reporting committed writes to `registry`'s listeners. */
export function watchingDialect(dialect: Dialect, registry: Registry): Dialect {
  return wrapDialect(dialect, (inner) => new WatchingDriver(inner, registry));
}
