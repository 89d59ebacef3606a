// One pass of the leaderboard updater (src/services/leaderboard/updater.ts) takes the legs that are pending, batch by
// batch, and stops at the first batch shorter than its limit: legs appended meanwhile wait for the next pass. Under a
// steady flow of fills a pass that chased them made a chain of folds of a few legs each (docs/leaderboard.md
// "Maintenance"). The flow is a trigger: every fold that takes legs makes one more appear, as fills do during a fold.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/db/index.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import type { LeaderboardDeps } from '../../src/services/leaderboard/deps.ts';
import { runPass, type UpdaterMemory } from '../../src/services/leaderboard/updater.ts';
import { migratedPGlite } from '../support/pglite-template.ts';

/** Legs the trigger adds at most, so a pass that chased them would still end (and fail the counts below). */
const ARRIVALS = 20;

describe('an updater pass', () => {
  let database: Database;
  let deps: LeaderboardDeps;
  const pending = async () => Number((await sql<{ n: string }>`SELECT count(*)::text AS n FROM leaderboard_legs WHERE state = 'pending'`.execute(database.db)).rows[0]!.n);

  beforeAll(async () => {
    database = await migratedPGlite();
    deps = { db: database.db, clock: new ManualClock(new Date('2026-12-01T12:00:00Z')), log: createLogger('silent'), chainId: 8453, collateral: [] };
    await sql`CREATE SEQUENCE test_arrivals`.execute(database.db);
    // A leg of an unknown trade: the fold skips it (it takes it all the same).
    await sql`CREATE FUNCTION test_leg_arrives() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT last_value FROM test_arrivals) < ${sql.raw(String(ARRIVALS))} OR NOT (SELECT is_called FROM test_arrivals) THEN
          INSERT INTO leaderboard_legs (source, role, chain_id, tx_hash, log_index, block_number) VALUES ('trade', 'trader', 8453, '0xarrived', nextval('test_arrivals'), 1);
        END IF;
        RETURN NULL;
      END $$`.execute(database.db);
    await sql`CREATE TRIGGER test_leg_arrives AFTER UPDATE ON leaderboard_legs FOR EACH STATEMENT EXECUTE FUNCTION test_leg_arrives()`.execute(database.db);
  });
  afterAll(async () => database?.close());

  it('folds full batches until a short one, and leaves what arrived meanwhile to the next pass', async () => {
    await sql`INSERT INTO leaderboard_legs (source, role, chain_id, tx_hash, log_index, block_number) SELECT 'trade', 'trader', 8453, '0xfirst', i, 1 FROM generate_series(1, 5) AS i`.execute(database.db);
    const memory: UpdaterMemory = { rolesFingerprint: null, rolesBuiltAt: 0 };
    // Batches of 2: 5 pending → 2 taken (+1 arrives) → 4 → 2 (+1) → 3 → 2 (+1) → 2 → 2 (+1) → 1 → 1 taken: short, the pass stops.
    const first = await runPass(deps, memory, { batch: 2 });
    expect(first.folded).toBe(9);
    expect(await pending()).toBe(1);
    // The next pass takes it (and the one its fold makes appear is left for the one after).
    const second = await runPass(deps, memory, { batch: 2 });
    expect(second.folded).toBe(1);
    expect(await pending()).toBe(1);
  });
});
