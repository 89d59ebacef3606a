// The 24-hour volume (docs/markets.md "24-hour volume"): a maintained aggregate (migration 0031) that a read corrects to
// be exact at its own time. A seeded run writes LMSR trades at times around the window's edges, deletes some (a
// reorganisation), moves the service clock and runs the expiry pass at random points; after every step the volume of
// every market, as the service reads it and as the listing sorts by it, equals Σ cost of its trades in the 24 hours
// before now, computed from the trades themselves. And the aggregate table keeps only a boundary's worth of work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock } from '../../src/core/clock.ts';
import { volume24hOf } from '../../src/services/markets/listing/shared.ts';
import type { MarketRow } from '../../src/services/markets/records.ts';
import { advanceVolumeWindow } from '../../src/services/markets/volume-window.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { bareMarketRow, seedMarket, seedTrade, USDC, WAD } from '../support/market-rows.ts';
import { prng } from '../crash/prng.ts';
import { nextFullHour } from '../support/time.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// From the next full hour of the real time: the migration set the window's boundary from the database's own clock (24
// hours before it ran), and the expiry pass never moves it back.
const clock = new ManualClock(nextFullHour());
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ clock, env: { MARKET_SCHEDULER_MS: '60000', INDEXER_POLL_MS: '60000' } });
  key = await server.key('read-only', ['markets:read']);
});
afterAll(async () => server?.close());

/** Σ cost of each market's trades with at in (now − 24 h, ∞), straight from the trades. */
async function truth(markets: readonly MarketRow[]): Promise<Map<string, string>> {
  const rows = await sql<{ market: string; v: string }>`
    SELECT market, sum(cost)::text AS v FROM market_trade_events
     WHERE at > ${new Date(clock.now().getTime() - DAY).toISOString()}::timestamptz AND market = ANY(${markets.map((m) => m.address)})
     GROUP BY market`.execute(server.runtime.database.db);
  return new Map(rows.rows.filter((r) => BigInt(r.v) !== 0n).map((r) => [r.market, r.v]));
}

describe('24-hour volume', () => {
  it('equals the trades of the last 24 hours after every write, reorganisation, clock move and expiry pass (seeded)', async () => {
    const db = server.runtime.database.db;
    const category = 'ECONOMY';
    const markets: MarketRow[] = [];
    for (let i = 0; i < 5; i++) markets.push(await seedMarket(server, { category, question: `Will volume market ${i} add up?` }));
    const rnd = prng(0x24a11);
    const next = () => rnd.int(0, 0x7fffffff);
    const written: { tx: string; market: MarketRow }[] = [];
    for (let step = 0; step < 60; step++) {
      const r = next() % 10;
      if (r < 5) {
        // A trade at a time around the window: most recent, some near its edges, some older (late indexing).
        const market = markets[next() % markets.length]!;
        const ago = [0, HOUR, 23 * HOUR, DAY - 1_000, DAY + 1_000, 2 * DAY][next() % 6]!;
        await seedTrade(server, market, { cost: BigInt(1 + (next() % 1000)) * USDC, at: new Date(clock.now().getTime() - ago), pricesAfter: [WAD / 2n, WAD / 2n] });
        const last = await db.selectFrom('market_trades').select('tx_hash').where('market', '=', market.address).orderBy('block_number', 'desc').limit(1).executeTakeFirstOrThrow();
        written.push({ tx: last.tx_hash, market });
      } else if (r < 6 && written.length > 0) {
        // A reorganisation took a trade away.
        const [gone] = written.splice(next() % written.length, 1);
        await db.deleteFrom('market_trades').where('tx_hash', '=', gone!.tx).execute();
      } else if (r < 8) {
        clock.advance((1 + (next() % 8)) * HOUR);
      } else {
        await advanceVolumeWindow(db, clock.now());
      }
      const want = await truth(markets);
      const got = await volume24hOf(db, markets, clock.now());
      const byAddress = new Map([...got].map(([k, v]) => [k.split(':')[1]!, v]));
      expect(Object.fromEntries(byAddress), `step ${step}`).toEqual(Object.fromEntries(want));
    }
    // The listing sorts by the same numbers.
    const want = await truth(markets);
    const res = await server.call('GET', `/api/agent/v1/discover/markets?category=${category}&sort=volume_24h&pageSize=50`, { key });
    expect(res.status, res.text).toBe(200);
    const listed = (res.body.markets as { address: string; volume24h: string }[]).filter((m) => markets.some((x) => x.address === m.address.toLowerCase()));
    expect(listed.map((m) => m.volume24h)).toEqual(markets.map((m) => want.get(m.address) ?? '0').sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : BigInt(b) < BigInt(a) ? -1 : 0)));

    // After a pass at now, the aggregate alone is the answer: the correction reads no trade.
    await advanceVolumeWindow(db, clock.now());
    const window = await db.selectFrom('market_volume_window').select('since').executeTakeFirstOrThrow();
    expect(new Date(window.since).getTime()).toBe(clock.now().getTime() - DAY);
    const stored = await db.selectFrom('market_volumes').select(['market', 'volume']).where('market', 'in', markets.map((m) => m.address)).execute();
    expect(Object.fromEntries(stored.filter((s) => BigInt(s.volume) !== 0n).map((s) => [s.market, s.volume]))).toEqual(Object.fromEntries(await truth(markets)));
  });
});

describe("a fill's market among thousands", () => {
  it('is found by its address and ledger id with a probe, not a read of every market (the fills\' volume trigger, migration 0039)', async () => {
    const db = server.runtime.database.db;
    const chainId = server.runtime.config.chain.id;
    // Never listed (no question), so nothing above sees them.
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ ...bareMarketRow({ chainId, question: 'unlisted' }), question: null, ledger_market_id: String(1_000_000 + i) }));
    for (let at = 0; at < rows.length; at += 500) await db.insertInto('markets').values(rows.slice(at, at + 500)).execute();
    await sql`ANALYZE markets`.execute(db);
    const target = rows[3_210]!;
    // The lookup the trigger makes for each fill it adds up: a fill names its market by address and ledger id, not chain.
    const { rows: explained } = await sql<{ 'QUERY PLAN': unknown }>`
      EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
      SELECT m.chain_id FROM markets m WHERE m.address = ${target.address} AND m.ledger_market_id = ${target.ledger_market_id}::bigint`.execute(db);
    const raw = explained[0]!['QUERY PLAN'];
    const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: { 'Actual Rows': number; 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[];
    const { Plan } = plan[0]!;
    expect(Plan['Actual Rows']).toBe(1);
    // A probe reads an index's root and leaf and one heap page. Without an index on the address, PostgreSQL before 18
    // reads the whole (chain_id, ledger_market_id) index (dozens of pages); 18 (PGlite) skips through it by chain (7).
    expect(Plan['Shared Hit Blocks'] + Plan['Shared Read Blocks']).toBeLessThanOrEqual(4);
  });
});
