// The process's housekeeping runs the database upkeep's growth check on both databases (src/runtime/housekeeping.ts):
// on PGlite beside the full pass autovacuum would do, on PostgreSQL alone (autovacuum looks once a minute, and a new
// database under load grows many times over in between). The check's interval is moved by fake timers; stopping the
// housekeeping waits for the pass it started.
import { sql, type Kysely } from 'kysely';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { Database, DB } from '../../src/db/index.ts';
import { GROWTH_CHECK_INTERVAL_MS } from '../../src/db/upkeep.ts';
import { startHousekeeping } from '../../src/runtime/housekeeping.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { backends, type Backend } from '../db/backends.ts';

const lastAnalyze = async (db: Kysely<DB>, table: string): Promise<Date | null> =>
  (await sql<{ at: Date | null }>`SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = ${table}`.execute(db)).rows[0]!.at;

/** The housekeeping of a process on `database`, with nothing for its other timers to do within the test. */
const housekeepingOf = (database: Database) =>
  startHousekeeping({
    database,
    services: { idempotency: { releaseOrphanedClaims: async () => 0 } } as unknown as Parameters<typeof startHousekeeping>[0]['services'],
    mailer: { kick: () => undefined },
    idempotencyTtlHours: 24,
    log: createLogger('silent'),
    progress: () => undefined,
  });

for (const { name, skip, make } of await backends()) {
  describe.skipIf(skip)(`housekeeping on ${name}`, () => {
    const backend: Backend = make();
    afterEach(() => {
      vi.useRealTimers();
    });
    afterAll(async () => backend.cleanup());

    it('analyzes a table that doubled, at the growth check’s first tick', async () => {
      const database = await backend.fresh();
      const { db } = database;
      await sql`CREATE TABLE grown (id int PRIMARY KEY) WITH (autovacuum_enabled = false)`.execute(db);
      // Its counters published by the writing backend as its transaction ends (else within a second): the check reads them.
      await db.transaction().execute(async (trx) => {
        await sql`INSERT INTO grown SELECT i FROM generate_series(1, 5000) i`.execute(trx);
        await sql`SELECT pg_stat_force_next_flush()`.execute(trx);
      });
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      const stop = await housekeepingOf(database);
      expect(await lastAnalyze(db, 'grown')).toBeNull();
      vi.advanceTimersByTime(GROWTH_CHECK_INTERVAL_MS);
      vi.useRealTimers();
      await stop();
      expect(await lastAnalyze(db, 'grown')).not.toBeNull();
    });
  });
}
