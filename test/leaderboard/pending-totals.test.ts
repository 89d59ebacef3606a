// The wallets' totals follow the folds through leaderboard_pending (src/services/leaderboard/totals.ts, docs/leaderboard.md
// "Maintenance"): a fold leaves its day changes and mark moves there and the totals step folds them into the board rows,
// a few wallets a transaction; a timer's pass does that at most every TOTALS_INTERVAL_MS; a rebuild of a wallet from its
// day rows and positions (a reorg's) takes its pending rows out, so nothing counts twice; and the totals the steps keep
// equal a rebuild from scratch.
import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { epochDay } from '../../src/core/leaderboard/boards.ts';
import type { Database, DB } from '../../src/db/index.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import type { LeaderboardDeps } from '../../src/services/leaderboard/deps.ts';
import { addDays } from '../../src/services/leaderboard/aggregates.ts';
import { addPending, refreshPendingTotals, refreshTotals, type DayDelta } from '../../src/services/leaderboard/totals.ts';
import { runPass, TOTALS_INTERVAL_MS, totalsDue, type UpdaterMemory } from '../../src/services/leaderboard/updater.ts';
import { migratedPGlite } from '../support/pglite-template.ts';

const clock = new ManualClock(new Date('2026-12-01T12:00:00Z'));
const today = epochDay(clock.now());
// Bob's address sorts first: the board rows come in wallet order.
const [alice, bob] = ['0x00000000000000000000000000000000000a11ce', '0x0000000000000000000000000000000000000b0b'];

describe('pending totals', () => {
  let database: Database;
  let deps: LeaderboardDeps;
  const db = () => database.db;
  const totals = () => db().selectFrom('leaderboard_totals').selectAll().orderBy('wallet').orderBy('period').orderBy('category').execute();
  const pending = async () => Number((await sql<{ n: string }>`SELECT count(*)::text AS n FROM leaderboard_pending`.execute(db())).rows[0]!.n);

  /** What a fold writes: the day rows and the position's mark at once, the totals' share of it left pending. */
  const fold = (deltas: DayDelta[], marks: { wallet: string; marked: bigint; move: bigint }[]) =>
    db()
      .transaction()
      .execute(async (trx: Transaction<DB>) => {
        await addDays(trx, deltas);
        for (const m of marks) {
          await sql`INSERT INTO leaderboard_positions (chain_id, market, wallet, outcome, category, shares, basis, marked)
            VALUES (8453, '0xmarket', ${m.wallet}, 0, 'CRYPTO', 10, 0, ${m.marked.toString()}::numeric)
            ON CONFLICT (chain_id, market, wallet, outcome) DO UPDATE SET marked = excluded.marked`.execute(trx);
        }
        await addPending(trx, deltas, new Map(marks.map((m) => [`${m.wallet}:CRYPTO`, m.move])));
      });
  /** Every wallet's totals rebuilt from its day rows and positions, as a reorg's take-back does. */
  const rebuilt = async () => {
    const wallets = new Set((await totals()).map((r) => r.wallet));
    await db().transaction().execute((trx) => refreshTotals(trx, today, wallets, [], wallets));
    return totals();
  };

  beforeAll(async () => {
    database = await migratedPGlite();
    deps = { db: database.db, clock, log: createLogger('silent'), chainId: 8453, collateral: [] };
  });
  afterAll(async () => database?.close());

  it('leaves a fold out of the board until the totals step, which takes every pending row', async () => {
    await fold(
      [
        { wallet: alice, category: 'CRYPTO', day: today - 1, realized: 5_000_000n, volume: 40_000_000n, trades: 2 },
        { wallet: bob, category: 'CRYPTO', day: today, realized: -2_000_000n, volume: 10_000_000n, trades: 1 },
      ],
      [{ wallet: alice, marked: 7_000_000n, move: 7_000_000n }],
    );
    expect(await totals()).toEqual([]);
    expect(await pending()).toBe(3);

    // One wallet a transaction: two transactions, then a short one (none left).
    expect(await refreshPendingTotals(deps, 1)).toBe(1);
    expect(await refreshPendingTotals(deps, 1)).toBe(1);
    expect(await refreshPendingTotals(deps, 1)).toBe(0);
    expect(await pending()).toBe(0);
    const all = (await totals()).filter((r) => r.period === 'all' && r.category === 'ALL');
    expect(all.map((r) => [r.wallet, r.realized, r.unrealized, r.pnl, r.volume, r.trades])).toEqual([
      [bob, '-2000000', '0', '-2000000', '10000000', 1],
      [alice, '5000000', '7000000', '12000000', '40000000', 2],
    ]);
    expect(await rebuilt()).toEqual(await totals());
  });

  it("takes a wallet's pending rows out when it is rebuilt from its day rows: nothing counts twice", async () => {
    await fold([{ wallet: alice, category: 'CRYPTO', day: today, realized: 1_000_000n, volume: 3_000_000n, trades: 1 }], [{ wallet: alice, marked: 9_000_000n, move: 2_000_000n }]);
    // A reorg's take-back of Alice rebuilds her from the day rows and positions, which hold the fold already.
    await db().transaction().execute((trx) => refreshTotals(trx, today, [alice], [], new Set([alice])));
    expect(await pending()).toBe(0);
    expect(await refreshPendingTotals(deps, 32)).toBe(0);
    const row = (await totals()).find((r) => r.wallet === alice && r.period === 'all' && r.category === 'ALL')!;
    expect([row.realized, row.unrealized, row.volume, row.trades]).toEqual(['6000000', '9000000', '43000000', 3]);
    expect(await rebuilt()).toEqual(await totals());
  });

  it("brings the totals up to date in a timer's pass only when due, and in every forced pass", async () => {
    const memory: UpdaterMemory = { rolesFingerprint: null, rolesBuiltAt: 0 };
    expect(totalsDue(memory, clock.now().getTime())).toBe(true);
    await fold([{ wallet: bob, category: 'CRYPTO', day: today, realized: 500_000n, volume: 1_000_000n, trades: 1 }], []);
    expect((await runPass(deps, memory, { batch: 100, totalsDue: true })).totals).toBe(1);
    expect(memory.totalsAt).toBe(clock.now().getTime());

    await fold([{ wallet: bob, category: 'CRYPTO', day: today, realized: 500_000n, volume: 1_000_000n, trades: 1 }], []);
    clock.advance(TOTALS_INTERVAL_MS - 1);
    expect(totalsDue(memory, clock.now().getTime())).toBe(false);
    expect((await runPass(deps, memory, { batch: 100, totalsDue: false })).totals).toBe(0);
    expect(await pending()).toBe(1);
    clock.advance(1);
    expect(totalsDue(memory, clock.now().getTime())).toBe(true);
    expect((await runPass(deps, memory, { batch: 100, totalsDue: true })).totals).toBe(1);
    const row = (await totals()).find((r) => r.wallet === bob && r.period === 'all' && r.category === 'ALL')!;
    expect([row.realized, row.volume, row.trades]).toEqual(['-1000000', '12000000', 3]);
    expect(await rebuilt()).toEqual(await totals());
  });
});
