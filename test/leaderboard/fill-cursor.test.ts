// The leaderboards read order-book fills after a cursor (migration 0038; docs/leaderboard.md "The inbox"): the order
// loop writes no leg rows, each fill is folded once as a maker's and a taker's leg, the legs a database held from
// before the migration are folded first, two folds at once count nothing twice, and a fill of a market the boards
// leave out is kept as skipped legs. On both back ends; fills are inserted directly (their orders and ledger
// operations left out, with the foreign keys off for the inserting transaction).
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { migrateToLatest } from '../../src/db/index.ts';
import type { DB } from '../../src/db/schema.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import type { LeaderboardDeps } from '../../src/services/leaderboard/deps.ts';
import { foldPending } from '../../src/services/leaderboard/fold.ts';
import { generateRows } from '../../bench/market-rows.ts';
import { backends, migratedTo, type Backend } from '../db/backends.ts';

const CHAIN = 8453;
const BOOK = '0x' + 'b0'.repeat(20);
const PM_BOOK = '0x' + 'c0'.repeat(20);
const HALF = (5n * 10n ** 17n).toString();
const MAKER = '0x' + '0a'.repeat(20);
const TAKER = '0x' + '0b'.repeat(20);
const NOW = new Date('2026-12-01T12:00:00Z');

/** An order-book market row: `collateral` PLAY (counted) or PM (left out by the boards). */
function bookRow(address: string, ledgerMarketId: string, collateral: 'PLAY' | 'PM') {
  const [row] = generateRows(1, {
    chainId: CHAIN,
    now: NOW,
    blockNumber: 1n,
    collateral: [
      { symbol: 'USDC', token: '0x' + '01'.repeat(20), decimals: 6 },
      { symbol: 'PM', token: '0x' + '02'.repeat(20), decimals: 18 },
    ],
    factories: { binary: '0x' + '03'.repeat(20), ternary: '0x' + '04'.repeat(20) },
  }).markets;
  return { ...row!, address, ledger_market_id: ledgerMarketId, outcome_count: 2, prices: JSON.stringify([HALF, HALF]), collateral_symbol: collateral, collateral_token: '0x' + '02'.repeat(20) };
}

/** Fills with these ids (a MINT of 1 share, the maker buying outcome 0 at 0.40) on `market`, inserted with the foreign keys off. */
async function insertFills(db: Kysely<DB>, ids: readonly number[], market = BOOK, ledgerMarketId = '1'): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(trx);
    for (const id of ids) {
      await sql`INSERT INTO order_fills (id, market_id, market, maker_order, taker_order, maker, taker, side, kind, price_bps, shares, taker_fee, ledger_seq, created_at)
        OVERRIDING SYSTEM VALUE VALUES (${id}, ${ledgerMarketId}, ${market}, gen_random_uuid(), gen_random_uuid(), ${MAKER}, ${TAKER}, 0, 1, 4000, 1000000, 0, ${id}, ${NOW})`.execute(trx);
    }
  });
}

const tradesCounted = async (db: Kysely<DB>): Promise<number> =>
  Number((await sql<{ n: string }>`SELECT coalesce(sum(trades), 0)::text AS n FROM leaderboard_days`.execute(db)).rows[0]!.n);
const cursorOf = async (db: Kysely<DB>): Promise<string> => (await db.selectFrom('leaderboard_fill_cursor').select('fill_id').executeTakeFirstOrThrow()).fill_id;

for (const b of await backends()) {
  describe.skipIf(b.skip)(`the leaderboards' fill cursor on ${b.name}`, () => {
    let backend: Backend;
    beforeAll(() => {
      backend = b.make();
    });
    afterAll(async () => backend?.cleanup());

    it('folds the legs from before migration 0038 first, then each later fill once, two folds at once included', async () => {
      const db = (await migratedTo(backend, '0037_payloads_json')) as unknown as Kysely<DB>;
      await db.insertInto('markets').values(bookRow(BOOK, '1', 'PLAY')).execute();
      // Before the migration: fills 1 and 2 with their legs, fill 1's maker leg already folded (a fold that stopped
      // between a fill's two legs), so 3 legs pending.
      await insertFills(db, [1, 2]);
      await sql`INSERT INTO leaderboard_legs (source, role, chain_id, fill_id) VALUES ('fill', 'taker', ${CHAIN}, 1), ('fill', 'maker', ${CHAIN}, 2), ('fill', 'taker', ${CHAIN}, 2)`.execute(db);

      await migrateToLatest(db);
      expect(await cursorOf(db)).toBe('2');
      await insertFills(db, [3, 4]);
      const deps: LeaderboardDeps = { db, clock: new ManualClock(NOW), log: createLogger('silent'), chainId: CHAIN, collateral: [] };

      // The old legs alone: a position takes its fills in order.
      expect(await foldPending(deps, 250)).toBe(3);
      expect(await tradesCounted(db)).toBe(3);
      expect(await cursorOf(db)).toBe('2');
      // Then the fills after the cursor, two legs each.
      expect(await foldPending(deps, 250)).toBe(4);
      expect(await tradesCounted(db)).toBe(7);
      expect(await cursorOf(db)).toBe('4');
      expect(await foldPending(deps, 250)).toBe(0);

      // Two folds at once (on PostgreSQL two connections, the cursor's row lock between them).
      await insertFills(db, [5, 6, 7, 8]);
      const taken = await Promise.all([foldPending(deps, 4), foldPending(deps, 4)]);
      // A full batch of fills (2 = 4 / 2) answers the limit; the pair took fills 5-8 between them, once each.
      expect(taken).toEqual([4, 4]);
      expect(await tradesCounted(db)).toBe(15);
      expect(await cursorOf(db)).toBe('8');
      expect(await foldPending(deps, 4)).toBe(0);

      // Nothing of the fills is left in leaderboard_legs: the old legs were deleted once folded.
      expect(await db.selectFrom('leaderboard_legs').select('id').execute()).toEqual([]);
      // The positions, each fill's leg once (a share is 10^12 base units of the ledger's shares): the taker holds 8 of
      // outcome 1 at 0.60; the maker 7 of outcome 0 at 0.40, fill 1's maker leg having been folded before this database.
      const positions = await db.selectFrom('leaderboard_positions').select(['wallet', 'outcome', 'shares', 'basis']).orderBy('wallet').execute();
      expect(positions).toEqual([
        { wallet: MAKER, outcome: 0, shares: '7000000000000', basis: '2800000000000' },
        { wallet: TAKER, outcome: 1, shares: '8000000000000', basis: '4800000000000' },
      ]);
    });

    it('keeps a fill of a market the boards leave out as skipped legs, and moves past it', async () => {
      const db = (await migratedTo(backend, '0037_payloads_json')) as unknown as Kysely<DB>;
      await migrateToLatest(db);
      await db.insertInto('markets').values(bookRow(PM_BOOK, '2', 'PM')).execute();
      await insertFills(db, [11], PM_BOOK, '2');
      const deps: LeaderboardDeps = { db, clock: new ManualClock(NOW), log: createLogger('silent'), chainId: CHAIN, collateral: [] };
      expect(await foldPending(deps, 250)).toBe(2);
      expect(await cursorOf(db)).toBe('11');
      expect(await tradesCounted(db)).toBe(0);
      const legs = await db.selectFrom('leaderboard_legs').select(['source', 'role', 'chain_id', 'fill_id', 'state']).orderBy('role').execute();
      expect(legs).toEqual([
        { source: 'fill', role: 'maker', chain_id: CHAIN, fill_id: '11', state: 'skipped' },
        { source: 'fill', role: 'taker', chain_id: CHAIN, fill_id: '11', state: 'skipped' },
      ]);
      expect(await foldPending(deps, 250)).toBe(0);
    });

    it('gives the fills after the cursor their legs back when migrated down', async () => {
      const db = (await migratedTo(backend, '0037_payloads_json')) as unknown as Kysely<DB>;
      await migrateToLatest(db);
      await db.insertInto('markets').values(bookRow(BOOK, '1', 'PLAY')).execute();
      await insertFills(db, [21, 22]);
      const { m0038_leaderboard_fill_cursor } = await import('../../src/db/migrations/0038_leaderboard_fill_cursor.ts');
      await m0038_leaderboard_fill_cursor.down!(db as unknown as Kysely<unknown>);
      const legs = await db.selectFrom('leaderboard_legs').select(['role', 'chain_id', 'fill_id', 'state']).orderBy('fill_id').orderBy('role').execute();
      expect(legs).toEqual([
        { role: 'maker', chain_id: CHAIN, fill_id: '21', state: 'pending' },
        { role: 'taker', chain_id: CHAIN, fill_id: '21', state: 'pending' },
        { role: 'maker', chain_id: CHAIN, fill_id: '22', state: 'pending' },
        { role: 'taker', chain_id: CHAIN, fill_id: '22', state: 'pending' },
      ]);
    });
  });
}
