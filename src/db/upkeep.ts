/**
 * Upkeep of the embedded database: what PostgreSQL's autovacuum does, which PGlite has not (it is one backend, with no
 * background workers). Without it, an embedded database that runs for days
 * - keeps the statistics of its tables' first minutes, and its kept statements (pglite-dialect.ts) keep the plans
 *   made for tables of a few rows: a join of the idempotency records by their key becomes a scan of every record, 85×
 *   slower at 200,000 records (docs/operations.md "Embedded database upkeep");
 * - never reclaims the dead rows its updates leave (a balance, a resting order, a claim are updated over and over);
 * - runs towards transaction-id wraparound, where PostgreSQL stops taking writes.
 *
 * One pass reads the tables' counters and does what autovacuum would at its default settings (with a tenth of its
 * ANALYZE sample, STATISTICS_TARGET): ANALYZE a table whose changed rows since its last analyze exceed 50 + 10 % of its
 * rows (an ANALYZE also makes every kept statement over the table plan again); VACUUM one whose dead rows exceed
 * 50 + 20 %, or whose inserts since its last vacuum exceed 1000 + 20 %; VACUUM (FREEZE) any table, system catalogs
 * included, whose oldest unfrozen transaction id is older than 150 million transactions. On PostgreSQL autovacuum does all this and the pass is not run.
 *
 * Between two passes a table can grow many times over (a new database under its first load: the orders went from 180 to
 * 5,000 rows in 5 s of the order bench), and a statement kept since it was small goes on with the plan made for it: a
 * join of 16 idempotency keys read all 1,664 records (3.2 ms), the makers' update all 5,231 orders (3.0 ms). So a growth
 * check runs in between (growthOnly): it ANALYZEs the tables that at least doubled since their last analyze and does
 * nothing else, a read of the counters (~2 ms) where nothing grew.
 *
 * The growth check runs on PostgreSQL too (`shared`): autovacuum looks at a database once a minute (autovacuum_naptime),
 * and a new database under load grows many times over before its first look, with the same kept plans (the pool's
 * prepared statements, pg-client.ts): in the order bench's first seconds the makers' update took 512 µs a batch and the
 * read of a batch's Idempotency-Keys 600 µs, 133 and 117 µs once the tables were analyzed. There a table is analyzed
 * at PostgreSQL's own statistics target, by one process at a time (the others skip it while one holds its lock).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** How often the embedded database's pass runs (autovacuum's own nap is 60 s; an embedded database grows fast at first). */
export const UPKEEP_INTERVAL_MS = 15_000;
/** How often the growth check runs between passes (upkeepPass with growthOnly). */
export const GROWTH_CHECK_INTERVAL_MS = 2_000;
/** The growth check's rule: a table analyzed at n rows (never: 0) is analyzed again past GROWTH_FACTOR × n + GROWTH_THRESHOLD. */
const GROWTH_FACTOR = 2;
const GROWTH_THRESHOLD = 500;
/** Namespace of the lock a process holds while it analyzes a table of a shared database (pg_try_advisory_xact_lock(ns, hashtext(table))). */
export const GROWTH_ANALYZE_LOCK = 0x5e0b;

/** autovacuum's defaults (PostgreSQL 17 documentation, "The Autovacuum Daemon"). */
const ANALYZE_THRESHOLD = 50;
const ANALYZE_SCALE = 0.1;
const VACUUM_THRESHOLD = 50;
const VACUUM_SCALE = 0.2;
const INSERT_THRESHOLD = 1000;
const INSERT_SCALE = 0.2;
/**
 * The statistics target of the pass's ANALYZE: a sample of 300 × 10 = 3,000 rows (PostgreSQL's default, 100, samples
 * 30,000). The pass holds the one connection meanwhile: measured on the order bench (2026-12-02), an ANALYZE of the
 * outbox at ~18,000 rows took 86 ms at 100 and 13 ms at 10 (orders 42 → 18 ms), and each such pause was a stall of every
 * request. What the plans here need (row counts, which are not sampled, and how distinct a key is) a smaller sample gives.
 */
export const STATISTICS_TARGET = 10;
/** vacuum_freeze_table_age: past it a vacuum freezes the whole table. */
export const FREEZE_AGE = 150_000_000;

export interface UpkeepPass {
  /** Tables analyzed (schema-qualified), in the order done. */
  analyzed: string[];
  /** Tables vacuumed (and analyzed with it when both were due). */
  vacuumed: string[];
  /** Tables vacuumed with FREEZE for their transaction-id age. */
  frozen: string[];
}

interface TableCounters {
  schema: string;
  name: string;
  /** Rows at the last analyze or vacuum (pg_class.reltuples; -1: never). */
  analyzedRows: string;
  live: string;
  dead: string;
  modified: string;
  inserted: string;
}

/** A schema-qualified, quoted table name for a maintenance command (names come from the catalog, never from a caller). */
const qualified = (schema: string, name: string): string => `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;

/**
 * Runs one pass; each table's command runs on its own (VACUUM cannot run inside a transaction). `growthOnly`: the growth
 * check, which only analyzes the tables that at least doubled since their last analyze. `shared`: the database is a
 * PostgreSQL server that other processes and autovacuum work on too; only the growth check runs there (a full pass is
 * refused), each table's ANALYZE at the server's statistics target and skipped while another process analyzes it.
 */
export async function upkeepPass(db: Kysely<DB>, opts: { freezeAge?: number; growthOnly?: boolean; shared?: boolean } = {}): Promise<UpkeepPass> {
  if (opts.shared && !opts.growthOnly) throw new Error('upkeep: on a shared database only the growth check runs (autovacuum does the rest)');
  const done: UpkeepPass = { analyzed: [], vacuumed: [], frozen: [] };
  const freezeAge = opts.freezeAge ?? FREEZE_AGE;
  const { rows: old } = opts.growthOnly
    ? { rows: [] }
    : await sql<{ schema: string; name: string }>`
    SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'm') AND c.relpersistence = 'p' AND age(c.relfrozenxid) > ${freezeAge}
     ORDER BY age(c.relfrozenxid) DESC`.execute(db);
  for (const t of old) {
    await sql.raw(`VACUUM (FREEZE) ${qualified(t.schema, t.name)}`).execute(db);
    done.frozen.push(`${t.schema}.${t.name}`);
  }
  const frozen = new Set(done.frozen);
  // A backend publishes its table counters at most once a second unless asked; PGlite's one backend is this process's,
  // so without this the pass would read counters up to a second old (or none at all on a new database). On a shared
  // database the writes are other backends': they publish theirs within a second.
  if (!opts.shared) await sql`SELECT pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<TableCounters>`
    SELECT s.schemaname AS schema, s.relname AS name, c.reltuples::text AS "analyzedRows", s.n_live_tup::text AS live, s.n_dead_tup::text AS dead,
           s.n_mod_since_analyze::text AS modified, s.n_ins_since_vacuum::text AS inserted
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid ORDER BY s.schemaname, s.relname`.execute(db);
  for (const t of rows) {
    const [live, dead, modified, inserted] = [Number(t.live), Number(t.dead), Number(t.modified), Number(t.inserted)];
    const grown = live > GROWTH_FACTOR * Math.max(Number(t.analyzedRows), 0) + GROWTH_THRESHOLD;
    const analyze = opts.growthOnly ? grown : modified > ANALYZE_THRESHOLD + ANALYZE_SCALE * live;
    const vacuum =
      !opts.growthOnly && !frozen.has(`${t.schema}.${t.name}`) && (dead > VACUUM_THRESHOLD + VACUUM_SCALE * live || inserted > INSERT_THRESHOLD + INSERT_SCALE * live);
    if (!analyze && !vacuum) continue;
    const name = qualified(t.schema, t.name);
    if (vacuum) await sql.raw(`VACUUM ${name}`).execute(db);
    const analyzed =
      analyze &&
      (await db.transaction().execute(async (trx) => {
        if (opts.shared) {
          const { rows: lock } = await sql<{ mine: boolean }>`SELECT pg_try_advisory_xact_lock(${GROWTH_ANALYZE_LOCK}, hashtext(${name})) AS mine`.execute(trx);
          if (!lock[0]!.mine) return false;
        } else {
          await sql.raw(`SET LOCAL default_statistics_target = ${STATISTICS_TARGET}`).execute(trx);
        }
        await sql.raw(`ANALYZE ${name}`).execute(trx);
        return true;
      }));
    if (vacuum) done.vacuumed.push(`${t.schema}.${t.name}`);
    if (analyzed) done.analyzed.push(`${t.schema}.${t.name}`);
  }
  return done;
}
