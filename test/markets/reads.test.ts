// The agent market reads (GET /discover/markets and the per-market reads) over a seeded projection, on the
// real runtime (PGlite, or PostgreSQL with DATABASE_URL). Every response is checked against the OpenAPI.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addComment } from '../../src/services/markets/comments.ts';
import { openInterestOf, type MarketRow } from '../../src/services/markets/records.ts';
import { startTestServer, type CallOptions, type TestServer } from '../support/harness.ts';
import { readGetter, randomAddress, seedComment, seedMarket, seedPosition, seedTrade, seedTradesBulk, USDC, WAD } from '../support/market-rows.ts';

let server: TestServer;
let chainId: number;
beforeAll(async () => {
  server = await startTestServer();
  chainId = server.config.chain.id;
});
afterAll(async () => {
  await server?.close();
});

const V1 = '/api/agent/v1';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let getter: ReturnType<typeof readGetter> | undefined;
const get = (url: string, opts: CallOptions = {}) => (getter ??= readGetter(server, V1))(url, opts);

const db = () => server.runtime.database.db;
const now = () => server.runtime.clock.now();
/** A category of its own, so each test sees only its markets. */
const freshCategory = () => `T_${randomBytes(4).toString('hex')}`;
const addresses = (body: { markets: { address: string }[] }) => body.markets.map((m) => m.address.toLowerCase());
const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();

describe('GET /discover/markets: query validation', () => {
  it('needs a key with markets:read', async () => {
    expect((await server.call('GET', `${V1}/discover/markets`)).status).toBe(401);
  });

  it.each([
    ['pageSize=0', 400],
    ['pageSize=1', 200],
    ['pageSize=100', 200],
    ['pageSize=101', 400],
    ['pageSize=2.5', 400],
    ['pageSize=many', 400],
    ['search=a', 400],
    ['search=ab', 200],
    [`search=${'a'.repeat(200)}`, 200],
    [`search=${'a'.repeat(201)}`, 400],
    ['marketState=open', 200],
    ['marketState=OPEN', 400],
    ['marketState=resolved', 200],
    ['sort=new', 200],
    ['sort=volume_24h', 200],
    ['sort=closing_soon', 200],
    ['sort=resolved_newest', 200],
    ['sort=hot', 400],
    ['chainId=0', 400],
    ['chainId=x', 400],
    ['creator=0x1234', 400],
    [`creator=${'0x' + 'ab'.repeat(20)}`, 200],
    ['address=0xAB', 200],
    ['address=0x', 200],
    ['address=ab', 400],
    [`address=0x${'a'.repeat(41)}`, 400],
    ['pricingModel=automated', 200],
    ['pricingModel=ORDERBOOK', 200],
    ['pricingModel=orderbook', 400],
    ['pricingModel=LMSR', 200],
    ['pricingModel=lmsr', 400],
    ['category=crypto', 200],
    ['cursor=%21%21', 400],
    ['cursor=bm90LWEtY3Vyc29y', 400],
    ['foo=1', 400],
  ])('%s answers %i', async (query, status) => {
    const res = await get(`/discover/markets?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    if (status === 400) expect(res.body.code).toBe('INVALID_QUERY');
  });

  it('names the unknown field', async () => {
    const res = await get('/discover/markets?foo=1');
    expect(res.body.errors).toContainEqual({ path: 'query.foo', message: expect.stringContaining('unknown field') });
  });

  it('refuses a chain it does not serve', async () => {
    const res = await get(`/discover/markets?chainId=${chainId + 1}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('UNSUPPORTED_CHAIN');
    expect((await get(`/discover/markets?chainId=${chainId}`)).status).toBe(200);
  });

  it('refuses a cursor with any sort but new', async () => {
    const category = freshCategory();
    for (let i = 0; i < 2; i++) await seedMarket(server, { category });
    const first = await get(`/discover/markets?${q({ category, pageSize: 1 })}`);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    for (const sort of ['volume_24h', 'closing_soon', 'resolved_newest']) {
      const res = await get(`/discover/markets?${q({ category, sort, cursor: first.body.nextCursor })}`);
      expect(res.status, sort).toBe(400);
      expect(res.body.code).toBe('INVALID_QUERY');
      expect(res.body.errors[0].path).toBe('query.cursor');
    }
    expect((await get(`/discover/markets?${q({ category, sort: 'new', cursor: first.body.nextCursor })}`)).status).toBe(200);
  });
});

describe('GET /discover/markets: filters', () => {
  it('narrows by category (any case), state, creator, pricing model and address prefix', async () => {
    const category = freshCategory();
    const creator = randomAddress();
    const a = await seedMarket(server, { category, creator });
    const b = await seedMarket(server, { category, state: 'closed' });
    const c = await seedMarket(server, { category, pricingModel: 'ORDERBOOK' });
    await seedMarket(server, { category: freshCategory() });

    const all = await get(`/discover/markets?${q({ category: category.toLowerCase() })}`);
    expect(all.status).toBe(200);
    expect(addresses(all.body)).toEqual([c.address, b.address, a.address]);
    expect(addresses((await get(`/discover/markets?${q({ category, marketState: 'closed' })}`)).body)).toEqual([b.address]);
    expect(addresses((await get(`/discover/markets?${q({ category, creator: creator.toUpperCase().replace('0X', '0x') })}`)).body)).toEqual([a.address]);
    expect(addresses((await get(`/discover/markets?${q({ category, pricingModel: 'ORDERBOOK' })}`)).body)).toEqual([c.address]);
    expect(addresses((await get(`/discover/markets?${q({ category, pricingModel: 'automated' })}`)).body)).toEqual([b.address, a.address]);
    // LMSR, the automated lane's name in GET /discover/fees, is read as automated; answers always say automated.
    const lmsr = (await get(`/discover/markets?${q({ category, pricingModel: 'LMSR' })}`)).body;
    expect(addresses(lmsr)).toEqual([b.address, a.address]);
    expect(lmsr.markets.map((m: { pricingModel: string }) => m.pricingModel)).toEqual(['automated', 'automated']);
    const key = await server.key('read-only');
    const counts = async (pricingModel: string) => (await server.call('GET', `/api/v1/markets/counts?${q({ category, pricingModel })}`, { key })).body.total as number;
    expect([await counts('LMSR'), await counts('automated'), await counts('ORDERBOOK')]).toEqual([2, 2, 1]);
    const consumer = await server.call('GET', `/api/v1/markets?${q({ category, pricingModel: 'LMSR' })}`, { key });
    expect(addresses(consumer.body)).toEqual([b.address, a.address]);
    expect(addresses((await get(`/discover/markets?${q({ address: a.address.toUpperCase().replace('0X', '0x') })}`)).body)).toEqual([a.address]);
    const prefix = b.address.slice(0, 12);
    expect(addresses((await get(`/discover/markets?${q({ category, address: prefix })}`)).body)).toEqual([b.address]);
    expect(all.body.markets[0]).toMatchObject({ category, chainId, pricingModel: 'ORDERBOOK' });
  });

  it('searches by substring, case-insensitively, and by trigram similarity', async () => {
    const category = freshCategory();
    const btc = await seedMarket(server, { category, question: 'Will Bitcoin close above $150,000 in 2027?' });
    const eth = await seedMarket(server, { category, question: 'Ethereum ETF approved' });
    await seedMarket(server, { category, question: 'Will it rain in Lisbon tomorrow?' });
    expect(addresses((await get(`/discover/markets?${q({ category, search: 'BITCOIN' })}`)).body)).toEqual([btc.address]);
    expect(addresses((await get(`/discover/markets?${q({ category, search: '$150,000' })}`)).body)).toEqual([btc.address]);
    // No substring match: found by similarity alone (pg_trgm is present on PGlite and on the test PostgreSQL).
    expect(addresses((await get(`/discover/markets?${q({ category, search: 'etherum etf aproved' })}`)).body)).toEqual([eth.address]);
    // LIKE wildcards in the search are literal characters.
    expect(addresses((await get(`/discover/markets?${q({ category, search: '%_' })}`)).body)).toEqual([]);
  });

  it('lists only registered, listed markets; detail shows the others', async () => {
    const category = freshCategory();
    const listed = await seedMarket(server, { category });
    const graduated = await seedMarket(server, { category, controls: { discovery: 'graduated' } });
    const hidden = [
      await seedMarket(server, { category, question: null }),
      await seedMarket(server, { category, controls: { discovery: 'hidden' } }),
      await seedMarket(server, { category, controls: { discovery: 'quarantined' } }),
      await seedMarket(server, { category, controls: { policy: 'taken_down', discovery: 'hidden', interaction: 'halted' } }),
    ];
    expect(addresses((await get(`/discover/markets?${q({ category })}`)).body)).toEqual([graduated.address, listed.address]);
    for (const m of hidden) {
      const res = await get(`/discover/markets/${m.address}`);
      expect(res.status).toBe(200);
      expect(res.body.market.address.toLowerCase()).toBe(m.address);
    }
    expect((await get(`/discover/markets/${hidden[0]!.address}`)).body.market.question).toContain('Unregistered market');
  });
});

describe('GET /discover/markets: sorts and pages', () => {
  it('sort=new lists newest first; volume_24h by the last 24 hours of traded cost', async () => {
    const category = freshCategory();
    const [m1, m2, m3, m4] = [await seedMarket(server, { category }), await seedMarket(server, { category }), await seedMarket(server, { category }), await seedMarket(server, { category })] as MarketRow[];
    await seedTrade(server, m1!, { cost: 300n * USDC, at: new Date(now().getTime() - 2 * HOUR), pricesAfter: [WAD / 2n + 10n ** 16n, WAD / 2n - 10n ** 16n] });
    await seedTrade(server, m2!, { cost: 500n * USDC, at: new Date(now().getTime() - HOUR), pricesAfter: [WAD / 2n, WAD / 2n] });
    await seedTrade(server, m3!, { cost: 10_000n * USDC, at: new Date(now().getTime() - 2 * DAY), pricesAfter: [WAD / 2n, WAD / 2n] });

    expect(addresses((await get(`/discover/markets?${q({ category })}`)).body)).toEqual([m4, m3, m2, m1].map((m) => m!.address));
    const byVolume = await get(`/discover/markets?${q({ category, sort: 'volume_24h' })}`);
    expect(addresses(byVolume.body)).toEqual([m2, m1, m4, m3].map((m) => m!.address));
    expect(byVolume.body.markets.map((m: { volume24h: string }) => m.volume24h)).toEqual([String(500n * USDC), String(300n * USDC), '0', '0']);
    expect(byVolume.body.markets[3].volume).toBe(String(10_000n * USDC));
    expect(byVolume.body.nextCursor).toBeNull();
  });

  it('sort=volume_24h compares whole tokens across collaterals: 200 PM ranks below 300 USDC and above 100 USDC', async () => {
    const category = freshCategory();
    const [usdc300, pm200, usdc100] = [await seedMarket(server, { category }), await seedMarket(server, { category, collateral: 'PM' }), await seedMarket(server, { category })] as MarketRow[];
    const at = new Date(now().getTime() - HOUR);
    await seedTrade(server, usdc300!, { cost: 300n * USDC, at, pricesAfter: [WAD / 2n, WAD / 2n] });
    // 200 PM is 2·10^20 base units (18 decimals), far more base units than 300 USDC (3·10^8).
    await seedTrade(server, pm200!, { cost: 200n * WAD, shares: 400n * WAD, at, pricesAfter: [WAD / 2n, WAD / 2n] });
    await seedTrade(server, usdc100!, { cost: 100n * USDC, at, pricesAfter: [WAD / 2n, WAD / 2n] });
    const byVolume = await get(`/discover/markets?${q({ category, sort: 'volume_24h' })}`);
    expect(addresses(byVolume.body)).toEqual([usdc300, pm200, usdc100].map((m) => m!.address));
    expect(byVolume.body.markets.map((m: { volume24h: string }) => m.volume24h)).toEqual([String(300n * USDC), String(200n * WAD), String(100n * USDC)]);
  });

  it('sort=closing_soon lists open markets by close time; resolved_newest resolved and void markets, latest close first', async () => {
    const category = freshCategory();
    const t = now().getTime();
    const late = await seedMarket(server, { category, closeTime: new Date(t + 20 * DAY) });
    const soon = await seedMarket(server, { category, closeTime: new Date(t + 2 * HOUR) });
    await seedMarket(server, { category, state: 'closed', closeTime: new Date(t - HOUR) });
    await seedMarket(server, { category, state: 'open', closeTime: new Date(t - 60_000) }); // past close, not yet moved
    const oldResolved = await seedMarket(server, { category, state: 'resolved', closeTime: new Date(t - 10 * DAY) });
    const newVoid = await seedMarket(server, { category, state: 'void', closeTime: new Date(t - 2 * DAY) });
    await seedMarket(server, { category, state: 'creator_proposal', closeTime: new Date(t - DAY) });

    expect(addresses((await get(`/discover/markets?${q({ category, sort: 'closing_soon' })}`)).body)).toEqual([soon.address, late.address]);
    expect(addresses((await get(`/discover/markets?${q({ category, sort: 'resolved_newest' })}`)).body)).toEqual([newVoid.address, oldResolved.address]);
    expect(addresses((await get(`/discover/markets?${q({ category, sort: 'closing_soon', pageSize: 1 })}`)).body)).toEqual([soon.address]);
  });

  it('sort=new pages neither skip nor repeat while markets are created between pages', async () => {
    const category = freshCategory();
    const original: MarketRow[] = [];
    for (let i = 0; i < 5; i++) original.push(await seedMarket(server, { category }));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`/discover/markets?${q({ category, pageSize: 2, ...(cursor ? { cursor } : {}) })}`);
      expect(res.status).toBe(200);
      expect(res.body.projection).toMatchObject({ source: 'indexer', cursors: [expect.objectContaining({ chainId })] });
      seen.push(...addresses(res.body));
      cursor = res.body.nextCursor;
      // New markets arrive between pages: they take higher ids and show only on a new first page.
      await seedMarket(server, { category });
      await seedMarket(server, { category });
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...original].reverse().map((m) => m.address));
    const fresh = await get(`/discover/markets?${q({ category, pageSize: 100 })}`);
    expect(fresh.body.markets).toHaveLength(11);
    expect(fresh.body.nextCursor).toBeNull();
  });
});

describe('GET /discover/markets/:address', () => {
  it('returns the MarketRecord with its 24-hour volume, open interest and the projection', async () => {
    const m = await seedMarket(server, { outcomes: ['A', 'B', 'C'] });
    await seedTrade(server, m, { outcome: 1, shares: 40n * USDC, cost: 25n * USDC, at: new Date(now().getTime() - HOUR), pricesAfter: [3n * 10n ** 17n, 4n * 10n ** 17n, 3n * 10n ** 17n] });
    await seedTrade(server, m, { outcome: 1, shares: 20n * USDC, cost: 8n * USDC, at: new Date(now().getTime() - 3 * DAY), pricesAfter: [3n * 10n ** 17n, 4n * 10n ** 17n, 3n * 10n ** 17n] });
    const res = await get(`/discover/markets/${m.address}?chainId=${chainId}`);
    expect(res.status).toBe(200);
    expect(res.body.market).toMatchObject({
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      outcomeCount: 3,
      volume: String(33n * USDC),
      volume24h: String(25n * USDC),
      tradeCount: 2,
      isTradeable: true,
      collateral: { symbol: 'USDC', decimals: 6 },
      outcomes: [
        { index: 0, outcome: 1, label: 'A', price: '0.3', outstandingShares: '0' },
        { index: 1, outcome: 2, label: 'B', price: '0.4', outstandingShares: String(60n * USDC) },
        { index: 2, outcome: 3, label: 'C', price: '0.3', outstandingShares: '0' },
      ],
      openInterest: String(24n * USDC),
    });
    expect(res.body.projection.source).toBe('indexer');
  });

  it('answers 400 INVALID_ID for a malformed address, 404 for an unknown one, UNSUPPORTED_CHAIN for another chain', async () => {
    const bad = await get('/discover/markets/0x1234');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_ID');
    const unknown = await get(`/discover/markets/${randomAddress()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('MARKET_NOT_FOUND');
    const m = await seedMarket(server);
    expect((await get(`/discover/markets/${m.address}?chainId=${chainId + 1}`)).body.code).toBe('UNSUPPORTED_CHAIN');
    expect((await get(`/discover/markets/${m.address}?foo=1`)).body.code).toBe('INVALID_QUERY');
    for (const sub of ['chart', 'trades', 'holders', 'related', 'comments', 'depth']) {
      expect((await get(`/discover/markets/0xnope/${sub}`)).body.code, sub).toBe('INVALID_ID');
      expect((await get(`/discover/markets/${randomAddress()}/${sub}`)).status, sub).toBe(404);
    }
  });
});

describe('GET /discover/markets/:address/chart', () => {
  it('ALL starts at the creation with equal prices and ends with the canonical latest frame', async () => {
    const created = new Date(now().getTime() - 3 * DAY);
    const m = await seedMarket(server, { outcomes: ['A', 'B', 'C'], createdAt: created });
    const p1 = [5n * 10n ** 17n, 25n * 10n ** 16n, 25n * 10n ** 16n];
    const p2 = [6n * 10n ** 17n, 2n * 10n ** 17n, 2n * 10n ** 17n];
    const t1 = new Date(now().getTime() - 2 * DAY);
    const t2 = new Date(now().getTime() - 2 * HOUR);
    await seedTrade(server, m, { at: t1, pricesAfter: p1 });
    await seedTrade(server, m, { at: t2, pricesAfter: p2 });

    const all = await get(`/discover/markets/${m.address}/chart`);
    expect(all.status).toBe(200);
    expect(all.body.window).toBe('ALL');
    expect(all.body.points).toEqual([
      { t: created.toISOString(), prices: ['0.333333333333333333', '0.333333333333333333', '0.333333333333333333'] },
      { t: t1.toISOString(), prices: ['0.5', '0.25', '0.25'] },
      { t: t2.toISOString(), prices: ['0.6', '0.2', '0.2'] },
    ]);
    expect(all.body.latest).toEqual({ t: t2.toISOString(), prices: ['0.6', '0.2', '0.2'] });

    // 1D: the window opens with the prices in force then (after the trade two days ago).
    const day = await get(`/discover/markets/${m.address}/chart?window=1D`);
    expect(day.body.points).toHaveLength(2);
    expect(day.body.points[0].prices).toEqual(['0.5', '0.25', '0.25']);
    expect(Date.parse(day.body.points[0].t)).toBeGreaterThan(now().getTime() - DAY - 60_000);
    const hour = await get(`/discover/markets/${m.address}/chart?window=1H`);
    expect(hour.body.points).toEqual([{ t: expect.any(String), prices: ['0.6', '0.2', '0.2'] }]);
    expect((await get(`/discover/markets/${m.address}/chart?window=1M`)).body.code).toBe('INVALID_QUERY');
  });

  it('downsamples to at most 200 points, ascending, keeping the last trade', async () => {
    const created = new Date(now().getTime() - 10 * DAY);
    const m = await seedMarket(server, { createdAt: created });
    const trades = Array.from({ length: 1_000 }, (_, i) => {
      const p = WAD / 4n + (BigInt(i) * WAD) / 2_000n;
      return { at: new Date(created.getTime() + (i + 1) * 800_000), pricesAfter: [p, WAD - p] };
    });
    await seedTradesBulk(db(), m, trades);
    const res = await get(`/discover/markets/${m.address}/chart?window=ALL`);
    expect(res.status).toBe(200);
    const points = res.body.points as { t: string; prices: string[] }[];
    expect(points.length).toBeLessThanOrEqual(200);
    expect(points.length).toBeGreaterThan(150);
    const times = points.map((p) => Date.parse(p.t));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(points[0]).toEqual({ t: created.toISOString(), prices: ['0.5', '0.5'] });
    expect(points.at(-1)!.t).toBe(trades.at(-1)!.at.toISOString());
  });
});

describe('GET /discover/markets/:address/depth (projection without a contract)', () => {
  it('returns the ladder sizes with null quotes when the chain does not quote the market', async () => {
    const m = await seedMarket(server, { outcomes: ['A', 'B', 'C'] });
    const res = await get(`/discover/markets/${m.address}/depth`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'lmsr', tradeable: false, basis: 'unavailable', liquidity: String(1_000n * USDC) });
    expect(res.body.outcomes).toHaveLength(3);
    expect(res.body.outcomes[2].levels).toEqual(
      [100, 500, 1000, 2500, 5000].map((bps) => ({ fractionBps: bps, shares: String((1_000n * USDC * BigInt(bps)) / 10_000n), quote: null })),
    );
    const book = await seedMarket(server, { pricingModel: 'ORDERBOOK' });
    expect((await get(`/discover/markets/${book.address}/depth`)).body.code).toBe('NOT_FOUND');
  });
});

describe('GET /discover/markets/:address/trades', () => {
  it('lists trades newest first with every field, limit 1..100 default 20', async () => {
    const m = await seedMarket(server);
    const trader = randomAddress();
    for (let i = 0; i < 25; i++) {
      await seedTrade(server, m, { trader, outcome: i % 2, isBuy: i !== 24, shares: BigInt(i + 1) * USDC, cost: BigInt(i + 1) * 500_000n, at: new Date(now().getTime() - (25 - i) * 60_000), pricesAfter: [WAD / 2n, WAD / 2n] });
    }
    const res = await get(`/discover/markets/${m.address}/trades`);
    expect(res.status).toBe(200);
    expect(res.body.trades).toHaveLength(20);
    expect(res.body.trades[0]).toMatchObject({
      outcome: 0,
      side: 'sell',
      shares: String(25n * USDC),
      cost: String(25n * 500_000n),
      protocolFee: String((25n * 500_000n) / 100n),
      creatorFee: String((25n * 500_000n) / 100n),
      pricesAfter: ['0.5', '0.5'],
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      logIndex: 0,
    });
    expect(res.body.trades[0].trader.toLowerCase()).toBe(trader);
    const times = res.body.trades.map((t: { timestamp: string }) => Date.parse(t.timestamp));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect((await get(`/discover/markets/${m.address}/trades?limit=100`)).body.trades).toHaveLength(25);
    expect((await get(`/discover/markets/${m.address}/trades?limit=1`)).body.trades).toHaveLength(1);
    for (const limit of [0, 101]) expect((await get(`/discover/markets/${m.address}/trades?limit=${limit}`)).body.code).toBe('INVALID_QUERY');
  });
});

describe('GET /discover/markets/:address/holders', () => {
  it('ranks holders per outcome and reports holder count and open interest', async () => {
    const m = await seedMarket(server, { prices: [7n * 10n ** 17n, 3n * 10n ** 17n], outstanding: [230n * USDC, 15n * USDC] });
    const both = randomAddress();
    await seedPosition(db(), m, both, 0, 100n * USDC);
    await seedPosition(db(), m, both, 1, 5n * USDC);
    const others = Array.from({ length: 22 }, () => randomAddress());
    for (const [i, h] of others.entries()) await seedPosition(db(), m, h, 0, BigInt(i + 1) * 500_000n);
    await seedPosition(db(), m, randomAddress(), 1, 10n * USDC);

    const res = await get(`/discover/markets/${m.address}/holders`);
    expect(res.status).toBe(200);
    expect(res.body.holderCount).toBe(24);
    expect(res.body.openInterest).toBe(openInterestOf(m.outstanding, m.prices).toString());
    expect(res.body.openInterest).toBe(String(161n * USDC + 4_500_000n));
    const [yes, no] = res.body.holders;
    expect(yes).toMatchObject({ index: 0, label: 'Yes', holderCount: 23, outstandingShares: String(230n * USDC) });
    expect(yes.top).toHaveLength(20);
    expect(yes.top[0]).toEqual({ address: expect.any(String), shares: String(100n * USDC) });
    expect(yes.top[0].address.toLowerCase()).toBe(both);
    expect(yes.top[1].shares).toBe(String(22n * 500_000n));
    expect(no.top.map((h: { shares: string }) => h.shares)).toEqual([String(10n * USDC), String(5n * USDC)]);
  });
});

describe('GET /discover/markets/:address/related', () => {
  it('lists up to 10 listed markets of the same category and chain, open first, never itself', async () => {
    const category = freshCategory();
    const self = await seedMarket(server, { category });
    const resolved = await seedMarket(server, { category, state: 'resolved' });
    const open: MarketRow[] = [];
    for (let i = 0; i < 10; i++) open.push(await seedMarket(server, { category }));
    await seedMarket(server, { category, controls: { discovery: 'hidden' } });
    await seedMarket(server, { category: freshCategory() });
    const res = await get(`/discover/markets/${self.address}/related`);
    expect(res.status).toBe(200);
    expect(addresses(res.body)).toEqual(open.reverse().map((m) => m.address));
    expect(addresses(res.body)).not.toContain(resolved.address);

    const few = freshCategory();
    const a = await seedMarket(server, { category: few, state: 'closed' });
    const b = await seedMarket(server, { category: few });
    const c = await seedMarket(server, { category: few });
    expect(addresses((await get(`/discover/markets/${a.address}/related`)).body)).toEqual([c.address, b.address]);
    expect(addresses((await get(`/discover/markets/${c.address}/related`)).body)).toEqual([b.address, a.address]);
  });
});

describe('GET /discover/markets/:address/comments', () => {
  it('pages comments newest first, each with its author position and reputation tag', async () => {
    const m = await seedMarket(server);
    const alice = randomAddress();
    const bob = randomAddress();
    await seedPosition(db(), m, alice, 1, 42n * USDC);
    const t0 = now().getTime() - DAY;
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await seedComment(db(), m, i % 2 === 0 ? alice : bob, `comment ${i}`, new Date(t0 + Math.floor(i / 2) * 60_000)));

    const first = await get(`/discover/markets/${m.address}/comments?limit=10`);
    expect(first.status).toBe(200);
    expect(first.body.comments).toHaveLength(10);
    expect(first.body.comments[0]).toMatchObject({ body: 'comment 24', position: ['0', String(42n * USDC)], reputation: { subjectId: expect.stringMatching(/^rs1_/), tier: 'new' } });
    expect(first.body.comments[0].author.toLowerCase()).toBe(alice);
    expect(first.body.comments.find((c: { author: string }) => c.author.toLowerCase() === bob).position).toEqual(['0', '0']);
    const seen = [...first.body.comments.map((c: { id: string }) => c.id)];
    let cursor = first.body.nextCursor;
    while (cursor) {
      const page = await get(`/discover/markets/${m.address}/comments?${q({ limit: 10, cursor })}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.comments.map((c: { id: string }) => c.id));
      cursor = page.body.nextCursor;
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen)).toEqual(new Set(ids));
    expect((await get(`/discover/markets/${m.address}/comments`)).body.comments).toHaveLength(20);
  });

  it('refuses a limit out of 1..50, a non-uuid cursor and a cursor of another market', async () => {
    const m = await seedMarket(server);
    const other = await seedMarket(server);
    const foreign = await seedComment(db(), other, randomAddress(), 'elsewhere', now());
    for (const query of ['limit=0', 'limit=51', 'cursor=abc', `cursor=${foreign}`, `cursor=${randomUUID()}`]) {
      const res = await get(`/discover/markets/${m.address}/comments?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe('INVALID_QUERY');
    }
    expect((await get(`/discover/markets/${m.address}/comments?limit=50`)).status).toBe(200);
  });

  it('addComment stores an operator comment agents then read', async () => {
    const m = await seedMarket(server);
    const author = randomAddress();
    const added = await addComment(db(), server.runtime.clock, { market: m.address.toUpperCase().replace('0X', '0x'), author, body: '  Resolution source looks solid.  ' });
    expect(added).toMatchObject({ market: m.address, author, body: 'Resolution source looks solid.', chainId });
    const res = await get(`/discover/markets/${m.address}/comments`);
    expect(res.body.comments).toEqual([expect.objectContaining({ id: added.id, body: 'Resolution source looks solid.' })]);
    await expect(addComment(db(), server.runtime.clock, { market: randomAddress(), author, body: 'x' })).rejects.toMatchObject({ code: 'MARKET_NOT_FOUND' });
    await expect(addComment(db(), server.runtime.clock, { market: m.address, author, body: ' ' })).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    await expect(addComment(db(), server.runtime.clock, { market: m.address, author: 'bob', body: 'hi' })).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
  });
});
