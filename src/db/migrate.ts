// Applies the schema migrations in src/db/migrations/ (forward-only: there is no migrate-down; a
// mistake is fixed by a new migration, so a database never has to run code it was not tested with).
import { Migrator, sql, type Kysely, type MigrationProvider } from 'kysely';
import { migrations } from './migrations/index.ts';

/**
 * Session-level advisory lock key held around the whole migration. Kysely's Migrator takes its own
 * advisory lock, but only around applying migrations: creating its bookkeeping tables happens before,
 * unlocked, and two processes racing on a fresh database can collide there. (PGlite: one session, harmless.)
 */
export const MIGRATION_ADVISORY_LOCK_KEY = 7_305_118_002_101n;

const provider: MigrationProvider = { getMigrations: async () => migrations };

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/**
 * Whether the database has exactly the migrations there are applied, read in two small statements. Kysely's Migrator
 * would read the whole catalog to find its tables first (60-90 ms on PGlite, at every start of a process). Anything
 * else (its table missing, a migration pending, one the code does not know) goes to the Migrator, which applies what
 * is pending or refuses as it does. Nothing can be unapplied, so a database found up to date stays so.
 */
async function upToDate<T>(db: Kysely<T>): Promise<boolean> {
  const { rows: table } = await sql<{ present: boolean }>`SELECT to_regclass('kysely_migration') IS NOT NULL AS present`.execute(db);
  if (!table[0]?.present) return false;
  const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db);
  const applied = rows.map((r) => r.name).sort();
  const known = Object.keys(migrations).sort();
  return applied.length === known.length && applied.every((name, i) => name === known[i]);
}

/** Applies every pending migration in name order; returns the names applied (empty if none). */
export async function migrateToLatest<T>(db: Kysely<T>, log?: (msg: string) => void): Promise<{ applied: string[] }> {
  if (await upToDate(db)) return { applied: [] };
  // The lock must be taken and released on one session, so everything runs on one pinned connection.
  return db.connection().execute(async (conn) => {
    await sql`SELECT pg_advisory_lock(${sql.lit(MIGRATION_ADVISORY_LOCK_KEY)})`.execute(conn);
    try {
      const migrator = new Migrator({ db: conn, provider });
      const { error, results = [] } = await migrator.migrateToLatest();
      if (error !== undefined) {
        const failed = results.find((r) => r.status === 'Error')?.migrationName;
        const reason = error instanceof Error ? error.message : String(error);
        // The pending batch runs in one transaction, so a failure leaves none of it applied.
        const what = failed ? `migration ${failed} failed` : 'migrating the database failed';
        throw new MigrationError(`${what} (no pending migration was applied): ${reason}`, { cause: error });
      }
      const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
      for (const name of applied) log?.(`applied migration ${name}`);
      return { applied };
    } finally {
      await sql`SELECT pg_advisory_unlock(${sql.lit(MIGRATION_ADVISORY_LOCK_KEY)})`.execute(conn);
    }
  });
}
