// The listing cache (docs/markets.md "Listing cache"): a list page is answered from memory until a market or a trade
// changes; a change committed by this process holds on the very next request (write watch), a change committed by
// another process as soon as its NOTIFY arrives (PostgreSQL), and nothing is kept longer than the TTL. The cache and
// the write watch themselves are checked piece by piece below.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ManualClock } from '../../src/core/clock.ts';
import { createReadCache } from '../../src/services/read-cache/read-cache.ts';
import type { Database } from '../../src/db/index.ts';
import { onPostgres, startTestServer, type TestServer } from '../support/harness.ts';
import { bareMarketRow, seedMarket, seedTrade, USDC, WAD } from '../support/market-rows.ts';
import { waitFor } from '../support/wait.ts';

const clock = new ManualClock(new Date('2026-11-24T12:00:00Z'));
let server: TestServer;
let key: string;
beforeAll(async () => {
  // The indexer stays out of the suite (one pass a minute): the rows here are written straight into the tables,
  // creations the chain never saw, which its pass voids as reorged (CREATION_REORGED) whenever it runs — between the
  // two reads of a test, under a loaded full run.
  server = await startTestServer({ clock, env: { INDEXER_POLL_MS: '60000' } });
  await server.runtime.services.indexer.syncNow(); // the pass the start began, over before any row is written
  key = await server.key('read-only', ['markets:read']);
});
afterAll(async () => server?.close());

const questions = async (path: string) => {
  const res = await server.call('GET', path, { key });
  expect(res.status, res.text).toBe(200);
  return (res.body.markets as { question: string }[]).map((m) => m.question);
};
const insertMarket = (question: string) => server.runtime.database.db.insertInto('markets').values(bareMarketRow({ chainId: server.config.chain.id, question, now: clock.now() })).execute();

describe('list pages and the changes that end them', () => {
  it('shows a market this process wrote on the very next request, on both surfaces', async () => {
    for (const path of ['/api/v1/markets?limit=5', '/api/agent/v1/discover/markets?pageSize=5']) {
      const before = await questions(path);
      expect(await questions(path)).toEqual(before); // the cached page
      const question = `Will the listing cache drop this page? ${path}`;
      await insertMarket(question);
      expect((await questions(path))[0]).toBe(question);
    }
  });

  it('shows a write of a transaction once it commits, and nothing of one rolled back', async () => {
    const path = '/api/v1/markets?limit=3';
    await questions(path);
    const db = server.runtime.database.db;
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('markets').values(bareMarketRow({ chainId: server.config.chain.id, question: 'Rolled back?', now: clock.now() })).execute();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await questions(path)).not.toContain('Rolled back?');
    await db.transaction().execute((trx) => trx.insertInto('markets').values(bareMarketRow({ chainId: server.config.chain.id, question: 'Committed in a transaction?', now: clock.now() })).execute());
    expect((await questions(path))[0]).toBe('Committed in a transaction?');
  });

  it('renders a page again when the service clock moves to another second', async () => {
    const path = '/api/v1/markets?limit=2';
    const first = await server.call('GET', path, { key });
    clock.advance(1_000);
    const second = await server.call('GET', path, { key });
    expect(second.body).toEqual(first.body); // same rows; a fresh render, not a stale one
    expect(second.headers['cache-control']).toBe(first.headers['cache-control']);
  });

  it('orders a volume_24h page again on the next request after a trade, written here or (PostgreSQL) by another process', async () => {
    const path = '/api/v1/markets?limit=50&sort=volume_24h';
    const [a, b] = [await seedMarket(server, { question: 'Will trades reorder page A?' }), await seedMarket(server, { question: 'Will trades reorder page B?' })];
    const order = async () => (await questions(path)).filter((q) => q.startsWith('Will trades reorder page'));
    await order(); // cached
    await seedTrade(server, a, { cost: 5n * USDC, pricesAfter: [WAD / 2n, WAD / 2n], at: clock.now() });
    expect(await order()).toEqual(['Will trades reorder page A?', 'Will trades reorder page B?']);
    if (!onPostgres) return;
    const config = server.config.database;
    if (config.kind !== 'postgres') throw new Error('expected PostgreSQL');
    // Another process's trade: its statement trigger NOTIFYs at commit (a copy of A's trade row, on B, larger).
    const other = new pg.Client({ connectionString: config.url });
    await other.connect();
    try {
      await other.query(
        `INSERT INTO market_trades SELECT (t).* FROM (SELECT jsonb_populate_record(NULL::market_trades,
           to_jsonb(mt) || jsonb_build_object('market', $1::text, 'cost', '50000000', 'tx_hash', $2::text, 'log_index', 7)) AS t
           FROM market_trades mt WHERE mt.market = $3 LIMIT 1) s`,
        [b.address, `0x${'77'.repeat(32)}`, a.address],
      );
    } finally {
      await other.end();
    }
    await waitFor(async () => (await order())[0] === 'Will trades reorder page B?', { what: "the other process's trade to reorder the page", timeoutMs: 900, intervalMs: 10 });
  });

  it.runIf(onPostgres)('shows a market another process committed once its NOTIFY arrives', async () => {
    const path = '/api/v1/markets?limit=4';
    await questions(path);
    const config = server.config.database;
    if (config.kind !== 'postgres') throw new Error('expected PostgreSQL');
    const other = new pg.Client({ connectionString: config.url });
    await other.connect();
    try {
      const row = bareMarketRow({ chainId: server.config.chain.id, question: 'Written by another process?', now: clock.now() });
      const cols = Object.keys(row);
      await other.query(`INSERT INTO markets (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(row) as unknown[]);
    } finally {
      await other.end();
    }
    // Well within the TTL (1 s): the notification, not the expiry, ends the page.
    await waitFor(async () => (await questions(path))[0] === 'Written by another process?', { what: 'the other process\'s market to be listed', timeoutMs: 900, intervalMs: 10 });
  });
});

describe('the read cache', () => {
  it('answers a page from memory until the TTL or an invalidation, and shares concurrent misses', async () => {
    let t = 0;
    let loads = 0;
    const cache = createReadCache({ ttlMs: 1_000, now: () => t });
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
    t = 999;
    expect(await cache.get('a', load)).toBe(1);
    t = 1_000;
    expect(await cache.get('a', load)).toBe(2);
    cache.invalidate();
    expect(await cache.get('a', load)).toBe(3);
    expect(await cache.get('b', load)).toBe(4);
  });

  it('does not keep a page whose read overlapped an invalidation, nor a failed read', async () => {
    const cache = createReadCache({ ttlMs: 1_000, now: () => 0 });
    let loads = 0;
    const reading = cache.get('a', async () => ++loads);
    cache.invalidate();
    expect(await reading).toBe(1);
    expect(await cache.get('a', async () => ++loads)).toBe(2);
    await expect(cache.get('b', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('b', async () => 'up')).toBe('up');
    // A TTL of 0 (READ_AFTER_WRITE_WINDOW_MS=0) keeps nothing.
    const none = createReadCache({ ttlMs: 0, now: () => 0 });
    expect(await none.get('a', async () => ++loads)).toBe(3);
    expect(await none.get('a', async () => ++loads)).toBe(4);
  });
});

describe('the write watch', () => {
  // The suite's own database (a copy made for this server): two scratch tables of its own.
  let database: Database;
  beforeAll(async () => {
    database = server.runtime.database;
    await database.db.schema.createTable('watched').addColumn('id', 'integer').execute();
    await database.db.schema.createTable('other').addColumn('id', 'integer').execute();
  });

  it('reports committed inserts, updates, deletes and raw writes of watched tables, once per statement or transaction', async () => {
    const seen: string[][] = [];
    const stop = database.writes.on(['watched'], (tables) => seen.push([...tables]));
    const db = database.db as unknown as import('kysely').Kysely<{ watched: { id: number }; other: { id: number } }>;
    await db.insertInto('watched').values({ id: 1 }).execute();
    await db.updateTable('watched').set({ id: 2 }).execute();
    await db.deleteFrom('watched').execute();
    await db.updateTable('watched as w').set({ id: 9 }).where('w.id', '=', 8).execute();
    await db.insertInto('other').values({ id: 1 }).execute();
    await db.selectFrom('watched').selectAll().execute();
    const { sql } = await import('kysely');
    await sql`INSERT INTO watched (id) VALUES (3)`.execute(db);
    expect(seen).toEqual([['watched'], ['watched'], ['watched'], ['watched'], ['watched']]);
    seen.length = 0;
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('watched').values({ id: 4 }).execute();
      await trx.insertInto('watched').values({ id: 5 }).execute();
      expect(seen).toEqual([]); // not before the commit
    });
    expect(seen).toEqual([['watched']]);
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('watched').values({ id: 6 }).execute();
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(seen).toEqual([['watched']]);
    stop();
    await db.insertInto('watched').values({ id: 7 }).execute();
    expect(seen).toEqual([['watched']]);
  });
});
