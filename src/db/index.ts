// Opens the database: PostgreSQL through `pg` when a URL is given, otherwise embedded PGlite in a folder.
// Both back ends return the same JS types (int8/numeric as strings, timestamptz as Date, jsonb parsed).
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect, sql, type Dialect, type Transaction } from 'kysely';
import pg from 'pg';
import { createCoordinator, type Coordinator } from './coordinator.ts';
import { acquireFolderLock, type FolderLock } from './lock.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { SvcPgClient } from './pg-client.ts';
import { pipeliningDialect } from './pipeline.ts';
import { createWriteRegistry, watchingDialect, type WriteWatch } from './write-watch.ts';
import type { DB } from './schema.ts';

export type { DB } from './schema.ts';
export { migrateToLatest, MigrationError } from './migrate.ts';

export interface OpenDatabaseOptions {
  /** postgres://… — use PostgreSQL. Takes precedence over pgliteDir. */
  databaseUrl?: string;
  /** PGlite data folder (created if missing), or `memory://` for a throwaway in-memory database. */
  pgliteDir?: string;
  /** A PGlite data folder dumped as a tarball (PGlite's dumpDataDir) to start from, instead of an empty database. */
  pgliteDump?: Blob;
  /**
   * PGlite only: settings (`name=value`) on its command line after PGLITE_SETTINGS, for this run. The test suites open
   * their small in-memory databases with smaller shared buffers, which start faster (test/support/pglite-template.ts).
   */
  pgliteSettings?: readonly string[];
  log?: (msg: string) => void;
}

export interface Database {
  db: Kysely<DB>;
  kind: 'pglite' | 'postgres';
  /** Destroys the pool / closes PGlite and releases the folder lock. Safe to call twice. */
  close(): Promise<void>;
  /** PGlite only: the whole data folder as a tarball, to open copies of it later (OpenDatabaseOptions.pgliteDump). */
  dump?: () => Promise<Blob>;
  /**
   * PostgreSQL only: LISTEN on `channel` on the process's coordination connection (other processes' NOTIFYs arrive at
   * their commit); returns how to stop. A lost connection is retried after a second, and every listener is woken when
   * it is back; until then callers fall back to polling.
   */
  listen?: (channel: string, onNotify: (payload?: string) => void) => Promise<() => Promise<void>>;
  /** PostgreSQL only: the coordination connection (session advisory locks; coordinator.ts). */
  coordinator?: Coordinator;
  /** Committed writes of this process to chosen tables, reported before the writer's await resolves (write-watch.ts). */
  writes: WriteWatch;
  /**
   * The database for background work (folds, keepers, upkeep). PGlite has one connection, on this process's thread,
   * whose holders take turns (turns.ts): these go after the requests' and wait for an expected one. PostgreSQL: `db`,
   * since every holder has a connection of its own.
   */
  background: Kysely<DB>;
  /** A request's transaction on `db` will ask for a connection soon: background work waits for it. Answers how to end that. */
  expectForeground(): () => void;
}

/** Anything queries can run on: the database or an open transaction. */
export type Executor = Kysely<DB> | Transaction<DB>;

const OID_INT8 = 20;
const OID_NUMERIC = 1700;
/** date: read as its 'YYYY-MM-DD' text on both back ends (pg would make a Date at local midnight, shifting the day by the zone). */
const OID_DATE = 1082;
const POOL_MAX = 10;
/**
 * Settings of the embedded database (docs/operations.md "Embedded database upkeep"). `wal_init_zero=off`: a new 16 MB
 * WAL segment is created by writing its last byte, not by filling it with zeros. PGlite is one backend on this
 * process's thread, so the commit that crossed a segment boundary stalled every request for 60-100 ms while it wrote
 * 16 MB of zeros (every ~10 s under the order bench). WAL records carry their own checksums: recovery never needed the
 * zeros (PostgreSQL turns this off on copy-on-write file systems for the same reason).
 */
export const PGLITE_SETTINGS = ['wal_init_zero=off', 'random_page_cost=1.1'];

/** PGlite's command line with `settings` (`name=value`) on it: they override postgresql.conf without rewriting it. */
export const pgliteStartParams = (settings: readonly string[]): string[] => [...PGlite.defaultStartParams, ...settings.flatMap((s) => ['-c', s])];
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * PGlite settings for a process that opens the database for one command and closes it (`svc agents create` while no
 * service runs, say): 16 MB of shared buffers instead of 128. Setting up 128 MB takes ~0.4 s of every open; a command
 * reads a few hundred pages.
 */
export const PGLITE_COMMAND_SETTINGS = ['shared_buffers=16MB'];

/**
 * Opens the database a config names: `{kind: 'postgres', url}` or `{kind: 'pglite', dir}`, with its shared buffers when
 * the config sets them (PGLITE_SHARED_BUFFERS_MB). `pgliteSettings` applies to PGlite only, after those
 * (OpenDatabaseOptions.pgliteSettings): a command's own 16 MB stand.
 */
export function openConfiguredDatabase(
  d: { kind: 'postgres'; url: string } | { kind: 'pglite'; dir: string; sharedBuffersMb?: number },
  pgliteSettings: readonly string[] = [],
): Promise<Database> {
  if (d.kind === 'postgres') return openDatabase({ databaseUrl: d.url });
  const own = d.sharedBuffersMb === undefined ? [] : [`shared_buffers=${d.sharedBuffersMb}MB`];
  return openDatabase({ pgliteDir: d.dir, pgliteSettings: [...own, ...pgliteSettings] });
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.log);
  if (opts.pgliteDir) return openPGlite(opts.pgliteDir, opts);
  throw new Error('openDatabase needs a databaseUrl (PostgreSQL) or a pgliteDir (embedded PGlite)');
}

/**
 * count(*) comes back as a number from PGlite's defaults and as a string from `pg` (and as a string
 * from both with our int8 parser); this accepts either, plus bigint, and refuses anything inexact.
 */
/** A unique constraint refused the write (SQLSTATE 23505, the same on PGlite and PostgreSQL). */
export const isUniqueViolation = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === '23505';

export function toCount(v: unknown): number {
  let n: number | undefined;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'bigint') n = Number(v);
  else if (typeof v === 'string' && /^-?[0-9]+$/.test(v)) n = Number(v);
  if (n === undefined || !Number.isSafeInteger(n)) {
    throw new TypeError(`not an integer count: ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`);
  }
  return n;
}

async function openPostgres(databaseUrl: string, log?: (msg: string) => void): Promise<Database> {
  const where = describeUrl(databaseUrl);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: POOL_MAX,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Statements sent together by `pipelined` go out without waiting for each other's answers (src/db/pipeline.ts), in one
    // write (SvcPgClient); one at a time, nothing changes.
    pipeline: true,
    Client: SvcPgClient,
    // Per-pool parsers, so another module's global pg.types.setTypeParser cannot change our types.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === OID_INT8 || oid === OID_NUMERIC || oid === OID_DATE) return (value: string) => value;
        return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
      }) as typeof pg.types.getTypeParser,
    },
  });
  // Without a listener, an idle client's network error would crash the process.
  pool.on('error', (err) => log?.(`PostgreSQL idle connection error (${where}): ${err.message}`));
  const writes = createWriteRegistry();
  const db = new Kysely<DB>({ dialect: watchingDialect(pipeliningDialect(new PostgresDialect({ pool }), { concurrent: true }), writes) });
  const started = Date.now();
  try {
    await sql`SELECT 1`.execute(db);
  } catch (err) {
    await db.destroy();
    throw new Error(`cannot connect to PostgreSQL at ${where}: ${errorMessage(err)}`, { cause: err });
  }
  log?.(`connected to PostgreSQL at ${where} in ${Date.now() - started} ms`);
  let closing: Promise<void> | undefined;
  // The coordination connection (LISTEN on every channel, the session locks), opened at its first use.
  let coordinator: Coordinator | undefined;
  const coordination = () => (coordinator ??= createCoordinator(databaseUrl, log));
  return {
    db,
    kind: 'postgres',
    background: db,
    expectForeground: () => () => undefined,
    close: () =>
      (closing ??= (async () => {
        await coordinator?.close();
        await db.destroy();
      })()),
    listen: (channel, onNotify) => coordination().listen(channel, onNotify),
    get coordinator() {
      return coordination();
    },
    writes,
  };
}

async function openPGlite(dir: string, { log, pgliteDump: dump, pgliteSettings = [] }: OpenDatabaseOptions): Promise<Database> {
  const inMemory = dir.startsWith('memory://');
  const dataDir = inMemory ? dir : resolve(dir);
  let lock: FolderLock | undefined;
  if (!inMemory) {
    // PGlite does not create parent folders; the lock file needs the folder itself.
    mkdirSync(dataDir, { recursive: true });
    lock = acquireFolderLock(dataDir);
  }
  const started = Date.now();
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dataDir, {
      extensions: { pg_trgm },
      startParams: pgliteStartParams([...PGLITE_SETTINGS, ...pgliteSettings]),
      ...(dump ? { loadDataDir: dump } : {}),
      // PGlite's default int8 parser gives a number, or a bigint past 2^53: make it a string like pg.
      parsers: { [OID_INT8]: (value: string) => value, [OID_NUMERIC]: (value: string) => value, [OID_DATE]: (value: string) => value },
    });
  } catch (err) {
    lock?.release();
    throw new Error(`cannot open PGlite database at ${dataDir}: ${errorMessage(err)}`, { cause: err });
  }
  log?.(`opened PGlite at ${dataDir} in ${Date.now() - started} ms`);
  const writes = createWriteRegistry();
  const dialect = new PGliteDialect({ database: pglite });
  const kysely = (d: Dialect) => new Kysely<DB>({ dialect: watchingDialect(pipeliningDialect(d, { concurrent: false }), writes) });
  const db = kysely(dialect);
  const background = kysely(dialect.background());
  let closing: Promise<void> | undefined;
  return {
    db,
    kind: 'pglite',
    writes,
    background,
    expectForeground: () => dialect.expect(),
    dump: () => compactDump(pglite),
    close: () =>
      (closing ??= (async () => {
        try {
          await background.destroy();
          await db.destroy();
        } finally {
          lock?.release();
        }
      })()),
  };
}

/**
 * The data folder as a tarball, its write-ahead log cut to what a start reads. A database opened from a dump starts as
 * after a crash: from the last checkpoint, reading the log after it. PGlite dumps every file as it is, and the log is
 * 16 MB segments: the one in use holds all the records since the cluster was made (10 MB of a migrated one), the rest
 * zeros. So: a new segment, a checkpoint at its start, the old segments deleted and the new one cut after the checkpoint's
 * page. A start reads up to the end of what is there and goes on writing after it. The dump of a migrated database shrinks
 * from 29 MB to 12 MB, and each copy opened from it writes that much less into its file system.
 */
async function compactDump(pglite: PGlite): Promise<Blob> {
  await pglite.exec('SELECT pg_switch_wal(); CHECKPOINT;');
  const [at] = (
    await pglite.query<{ dir: string; file: string; offset: number }>(
      `SELECT current_setting('data_directory') AS dir, file_name AS file, file_offset AS offset FROM pg_walfile_name_offset(pg_current_wal_insert_lsn())`,
    )
  ).rows;
  const { FS } = pglite.Module;
  const wal = `${at!.dir}/pg_wal`;
  for (const name of FS.readdir(wal)) if (/^[0-9A-F]{24}$/.test(name) && name !== at!.file) FS.unlink(`${wal}/${name}`);
  const page = 8192;
  FS.truncate(`${wal}/${at!.file}`, Math.ceil((at!.offset + 1) / page) * page);
  return pglite.dumpDataDir('none');
}

/** host:port/database of a URL, never its password. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return '(unparseable database URL)';
  }
}

function errorMessage(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.map(errorMessage).join('; ');
  return err instanceof Error ? err.message || err.name : String(err);
}
