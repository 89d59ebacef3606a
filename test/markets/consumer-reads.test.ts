// The consumer market reads (/api/v1/markets, counts, sitemap, chart, creator live count) over a seeded
// projection: query limits, headers, codes, and the named response schemas in the consumer OpenAPI.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET_STATES } from '../../src/core/markets/states.ts';
import { countLiveMarkets } from '../../src/services/markets/listing/count-live-markets.ts';
import type { MarketRow } from '../../src/services/markets/records.ts';
import { startTestServer, type CallOptions, type TestServer } from '../support/harness.ts';
import { readGetter, randomAddress, seedMarket, seedTrade, WAD } from '../support/market-rows.ts';

let server: TestServer;
let chainId: number;
beforeAll(async () => {
  server = await startTestServer();
  chainId = server.config.chain.id;
});
afterAll(async () => {
  await server?.close();
});

const V1 = '/api/v1';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let getter: ReturnType<typeof readGetter> | undefined;
const get = (url: string, opts: CallOptions = {}) => (getter ??= readGetter(server, V1))(url, opts);

const now = () => server.runtime.clock.now();
const freshCategory = () => `C_${randomBytes(4).toString('hex')}`;
const addresses = (body: { markets: { address: string }[] }) => body.markets.map((m) => m.address.toLowerCase());
const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
const pct = (n: number) => (BigInt(n) * WAD) / 100n;

describe('GET /api/v1/markets', () => {
  it('needs a key', async () => {
    expect((await server.call('GET', `${V1}/markets`)).status).toBe(401);
  });

  it('accepts all fifteen query fields at once and refuses any other', async () => {
    const all = {
      marketState: 'open',
      category: 'CRYPTO',
      sort: 'new',
      dateRange: 'MONTH',
      creator: randomAddress(),
      chainId,
      cursor: Buffer.from('new:999999').toString('base64url'),
      limit: 5,
      collateral: 'USDC',
      pricingModel: 'automated',
      search: 'bitcoin',
      probMin: 0,
      probMax: 100,
      geoPlace: 'Lisbon',
      geoCountry: 'PT',
    };
    expect(Object.keys(all)).toHaveLength(15);
    const res = await get(`/markets?${q(all)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ markets: [] });
    const unknown = await get(`/markets?${q({ ...all, pageSize: 5 })}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('INVALID_QUERY');
    expect(unknown.body.errors).toContainEqual({ path: 'query.pageSize', message: expect.stringContaining('unknown field') });
  });

  it.each([
    ['limit=0', 400],
    ['limit=1', 200],
    ['limit=100', 200],
    ['limit=101', 400],
    ['probMin=-1', 400],
    ['probMin=101', 400],
    ['probMin=50.5', 400],
    ['probMin=60&probMax=40', 400],
    ['probMin=40&probMax=60', 200],
    ['dateRange=TODAY', 200],
    ['dateRange=YEAR', 400],
    ['geoCountry=PRT', 400],
    ['geoCountry=pt', 200],
    ['search=x', 400],
    [`search=${'x'.repeat(201)}`, 400],
    ['collateral=PM', 200],
    ['collateral=DAI', 400],
    ['marketState=opened', 400],
    ['sort=volume_24h', 200],
    ['sort=trending', 400],
    ['chainId=0', 400],
    ['cursor=%3F%3F', 400],
  ])('%s answers %i', async (query, status) => {
    const res = await get(`/markets?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    if (status === 400) expect(res.body.code).toBe('INVALID_QUERY');
  });

  it('always sends Cache-Control, and X-Next-Cursor only while more markets follow', async () => {
    const category = freshCategory();
    const made: MarketRow[] = [];
    for (let i = 0; i < 3; i++) made.push(await seedMarket(server, { category }));
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 2; page++) {
      const res = await get(`/markets?${q({ category, limit: 2, ...(cursor ? { cursor } : {}) })}`);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=5, stale-while-revalidate=30');
      seen.push(...addresses(res.body));
      cursor = res.headers['x-next-cursor'] as string | undefined;
      if (page === 0) expect(cursor).toEqual(expect.any(String));
    }
    expect(cursor).toBeUndefined();
    expect(seen).toEqual(made.reverse().map((m) => m.address));
    const exact = await get(`/markets?${q({ category, limit: 3 })}`);
    expect(exact.headers['x-next-cursor']).toBeUndefined();
    const empty = await get(`/markets?${q({ category: freshCategory() })}`);
    expect(empty.headers['cache-control']).toBe('public, max-age=5, stale-while-revalidate=30');
    expect(empty.body.markets).toEqual([]);
    // Other sorts are one page: no cursor even with more markets.
    expect((await get(`/markets?${q({ category, limit: 1, sort: 'volume_24h' })}`)).headers['x-next-cursor']).toBeUndefined();
    const cursorOfNew = Buffer.from(`new:${made[0]!.id}`).toString('base64url');
    expect((await get(`/markets?${q({ category, sort: 'closing_soon', cursor: cursorOfNew })}`)).body.code).toBe('INVALID_QUERY');
  });

  it('filters by collateral, dateRange, probability band, place and country', async () => {
    const category = freshCategory();
    const t = now().getTime();
    const usdcSoon = await seedMarket(server, { category, closeTime: new Date(t + 3 * HOUR), prices: [pct(72), pct(28)], geoPlace: 'Lisbon', geoCountry: 'PT' });
    const pmWeek = await seedMarket(server, { category, collateral: 'PM', closeTime: new Date(t + 5 * DAY), prices: [pct(35), pct(65)], geoCountry: 'BR' });
    const usdcLater = await seedMarket(server, { category, closeTime: new Date(t + 60 * DAY), prices: [(WAD * 999n) / 1000n, WAD / 1000n] });
    const list = async (params: Record<string, string | number>) => addresses((await get(`/markets?${q({ category, ...params })}`)).body);

    expect(await list({ collateral: 'usdc' })).toEqual([usdcLater.address, usdcSoon.address]);
    const pm = server.runtime.services.chain.collateral().find((c) => c.symbol === 'PM')!;
    expect(await list({ collateral: pm.token })).toEqual([pmWeek.address]);
    expect(await list({ dateRange: 'TODAY' })).toEqual([usdcSoon.address]);
    expect(await list({ dateRange: 'WEEK' })).toEqual([pmWeek.address, usdcSoon.address]);
    expect(await list({ dateRange: 'MONTH' })).toEqual([pmWeek.address, usdcSoon.address]);
    expect(await list({ probMin: 72 })).toEqual([usdcLater.address, usdcSoon.address]);
    expect(await list({ probMin: 73, probMax: 99 })).toEqual([usdcLater.address]);
    expect(await list({ probMax: 35 })).toEqual([pmWeek.address]);
    expect(await list({ probMin: 35, probMax: 72 })).toEqual([usdcSoon.address, pmWeek.address].reverse());
    expect(await list({ geoPlace: 'lisbon' })).toEqual([usdcSoon.address]);
    expect(await list({ geoCountry: 'br' })).toEqual([pmWeek.address]);
  });
});

describe('GET /api/v1/markets/counts', () => {
  it('counts listed markets per state under the filters', async () => {
    const category = freshCategory();
    for (const state of ['open', 'open', 'closed', 'resolved', 'void', 'human_voting'] as const) await seedMarket(server, { category, state });
    await seedMarket(server, { category, state: 'open', controls: { discovery: 'hidden' } });
    await seedMarket(server, { category, state: 'open', question: null });
    const res = await get(`/markets/counts?${q({ category })}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.counts)).toEqual([...MARKET_STATES]);
    expect(res.body).toEqual({
      counts: { open: 2, closed: 1, creator_proposal: 0, challenge: 0, human_voting: 1, council_review: 0, resolved: 1, void: 1 },
      total: 6,
    });
    expect((await get(`/markets/counts?${q({ category, collateral: 'PM' })}`)).body.total).toBe(0);
  });

  it.each([
    ['search=ab', 200],
    ['search=a', 400],
    [`search=${'a'.repeat(200)}`, 200],
    [`search=${'a'.repeat(201)}`, 400],
    ['probMin=0&probMax=100', 200],
    ['probMin=-1', 400],
    ['probMax=101', 400],
    ['probMin=1.5', 400],
    ['geoCountry=US', 200],
    ['geoCountry=U', 400],
    ['geoCountry=USA', 400],
    ['dateRange=WEEK', 200],
    ['dateRange=week', 400],
    ['chainId=0', 400],
    ['chainId=-5', 400],
    ['marketState=open', 400],
    ['limit=5', 400],
  ])('%s answers %i', async (query, status) => {
    const res = await get(`/markets/counts?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    if (status === 400) expect(res.body.code).toBe('INVALID_QUERY');
  });

  it('refuses a chain it does not serve', async () => {
    expect((await get(`/markets/counts?chainId=${chainId + 1}`)).body.code).toBe('UNSUPPORTED_CHAIN');
  });
});

describe('GET /api/v1/markets/sitemap', () => {
  it('lists listed markets newest first with address, chain, question and update time', async () => {
    const shown = await seedMarket(server, { question: 'Sitemap market?' });
    const hidden = await seedMarket(server, { controls: { policy: 'taken_down', discovery: 'hidden' } });
    const newest = await seedMarket(server);
    const res = await get('/markets/sitemap');
    expect(res.status).toBe(200);
    const list = addresses(res.body);
    expect(list.indexOf(newest.address)).toBeLessThan(list.indexOf(shown.address));
    expect(list).not.toContain(hidden.address);
    expect(res.body.markets.find((m: { address: string }) => m.address.toLowerCase() === shown.address)).toEqual({
      address: expect.any(String),
      chainId,
      question: 'Sitemap market?',
      updatedAt: shown.updated_at.toISOString(),
    });
  });
});

describe('GET /api/v1/markets/{market_id}/chart', () => {
  it('answers the series and latest frame of the agent chart', async () => {
    const created = new Date(now().getTime() - 2 * DAY);
    const m = await seedMarket(server, { createdAt: created });
    const at = new Date(now().getTime() - HOUR);
    await seedTrade(server, m, { at, pricesAfter: [pct(60), pct(40)] });
    const res = await get(`/markets/${m.address}/chart?chainId=${chainId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      chainId,
      window: 'ALL',
      points: [
        { t: created.toISOString(), prices: ['0.5', '0.5'] },
        { t: at.toISOString(), prices: ['0.6', '0.4'] },
      ],
      latest: { t: at.toISOString(), prices: ['0.6', '0.4'] },
    });
    const agentKey = await server.key('read-only');
    const agent = await server.call('GET', `/api/agent/v1/discover/markets/${m.address}/chart`, { key: agentKey });
    expect(agent.body).toEqual(res.body);
    expect((await get(`/markets/${m.address}/chart?${q({ chainId, window: '1D', address: m.address.toUpperCase().replace('0X', '0x') })}`)).status).toBe(200);
  });

  it('takes the externalId its creator gave the market as market_id; one two creators share is INVALID_ID', async () => {
    const [m, twin, other] = [await seedMarket(server), await seedMarket(server), await seedMarket(server)];
    const db = server.runtime.database.db;
    await db.updateTable('markets').set({ external_id: 'chart-ext-1' }).where('address', '=', m.address).execute();
    const byAddress = await get(`/markets/${m.address}/chart?chainId=${chainId}`);
    const byExternalId = await get(`/markets/chart-ext-1/chart?chainId=${chainId}&address=${m.address}`);
    expect(byExternalId.status, byExternalId.text).toBe(200);
    expect(byExternalId.body).toEqual(byAddress.body);
    expect((await get(`/markets/chart-ext-1/chart?chainId=${chainId}&address=${other.address}`)).body.code).toBe('INVALID_QUERY');
    await db.updateTable('markets').set({ external_id: 'chart-ext-1' }).where('address', '=', twin.address).execute();
    const shared = await get(`/markets/chart-ext-1/chart?chainId=${chainId}`);
    expect([shared.status, shared.body.code]).toEqual([400, 'INVALID_ID']);
  });

  it('answers MISSING_FIELDS, INVALID_QUERY, INVALID_ID and MARKET_NOT_FOUND as the spec lists', async () => {
    const m = await seedMarket(server);
    const cases: [string, number, string][] = [
      [`/markets/${m.address}/chart`, 400, 'MISSING_FIELDS'],
      [`/markets/${m.address}/chart?window=1D`, 400, 'MISSING_FIELDS'],
      [`/markets/${m.address}/chart?chainId=abc`, 400, 'INVALID_QUERY'],
      [`/markets/${m.address}/chart?chainId=${chainId}&window=2D`, 400, 'INVALID_QUERY'],
      [`/markets/${m.address}/chart?chainId=${chainId}&address=0x12`, 400, 'INVALID_QUERY'],
      [`/markets/${m.address}/chart?chainId=${chainId}&address=${randomAddress()}`, 400, 'INVALID_QUERY'],
      [`/markets/${m.address}/chart?chainId=${chainId}&extra=1`, 400, 'INVALID_QUERY'],
      [`/markets/not-a-market/chart?chainId=${chainId}`, 404, 'MARKET_NOT_FOUND'],
      [`/markets/${randomAddress()}/chart?chainId=${chainId}`, 404, 'MARKET_NOT_FOUND'],
      [`/markets/${m.address}/chart?chainId=${chainId + 1}`, 400, 'UNSUPPORTED_CHAIN'],
    ];
    for (const [url, status, code] of cases) {
      const res = await get(url);
      expect(res.status, url).toBe(status);
      expect(res.body.code, url).toBe(code);
    }
  });
});

describe('GET /api/v1/markets/by-creator/{address}/live-count', () => {
  it('counts open and closed markets of the creator, listed or not, leaving out excludeMarket', async () => {
    const creator = randomAddress();
    const open = await seedMarket(server, { creator, state: 'open' });
    await seedMarket(server, { creator, state: 'closed', question: null });
    for (const state of ['creator_proposal', 'resolved', 'void'] as const) await seedMarket(server, { creator, state });
    await seedMarket(server, { state: 'open' });
    const res = await get(`/markets/by-creator/${creator}/live-count`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ creator: expect.any(String), chainId, liveCount: 2, maxLiveMarkets: 20 });
    expect(res.body.creator.toLowerCase()).toBe(creator);
    expect((await get(`/markets/by-creator/${creator}/live-count?excludeMarket=${open.address}`)).body.liveCount).toBe(1);
    expect((await get(`/markets/by-creator/${randomAddress()}/live-count`)).body.liveCount).toBe(0);
    const db = server.runtime.database.db;
    expect(await countLiveMarkets(db, { chainId, creator: creator.toUpperCase().replace('0X', '0x') })).toBe(2);
    expect(await countLiveMarkets(db, { chainId, creator, excludeMarket: open.address })).toBe(1);
  });

  it('answers INVALID_PAYLOAD for a bad address, excludeMarket or field', async () => {
    for (const url of ['/markets/by-creator/0x12/live-count', `/markets/by-creator/${randomAddress()}/live-count?excludeMarket=nope`, `/markets/by-creator/${randomAddress()}/live-count?chainId=1`]) {
      const res = await get(url);
      expect(res.status, url).toBe(400);
      expect(res.body.code, url).toBe('INVALID_PAYLOAD');
    }
  });
});

describe('consumer OpenAPI', () => {
  it('names each response schema, requires the chart chainId and declares the listing headers', async () => {
    const doc = (await server.call('GET', `${V1}/openapi.json`)).body;
    const ok = (path: string) => doc.paths[path].get.responses['200'];
    expect(ok('/api/v1/markets').content['application/json'].schema).toEqual({ $ref: '#/components/schemas/MarketListingsResponse' });
    expect(ok('/api/v1/markets').headers['Cache-Control'].required).toBe(true);
    expect(ok('/api/v1/markets').headers['X-Next-Cursor'].required).toBe(false);
    for (const [path, name] of [
      ['/api/v1/markets/counts', 'MarketCountsResponse'],
      ['/api/v1/markets/sitemap', 'MarketSitemapResponse'],
      ['/api/v1/markets/{market_id}/chart', 'MarketChartResponse'],
      ['/api/v1/markets/by-creator/{address}/live-count', 'CreatorLiveMarketCountResponse'],
    ]) {
      expect(ok(path!).content['application/json'].schema, path).toEqual({ $ref: `#/components/schemas/${name}` });
      expect(doc.components.schemas[name!], name).toBeDefined();
    }
    const chart = doc.paths['/api/v1/markets/{market_id}/chart'].get;
    expect(chart.parameters.find((p: { name: string }) => p.name === 'chainId')).toMatchObject({ in: 'query', required: true });
    // The spec's market_id is a string of length ≥ 1: an address or the market's externalId.
    expect(chart.parameters.find((p: { name: string }) => p.name === 'market_id').schema).toMatchObject({ type: 'string', minLength: 1 });
    expect(chart.responses['400'].description).toEqual(expect.stringContaining('MISSING_FIELDS'));
    expect(chart.responses['404'].description).toEqual(expect.stringContaining('MARKET_NOT_FOUND'));
    const listing = doc.paths['/api/v1/markets'].get;
    expect(listing.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name).sort()).toEqual(
      ['category', 'chainId', 'collateral', 'creator', 'cursor', 'dateRange', 'geoCountry', 'geoPlace', 'limit', 'marketState', 'pricingModel', 'probMax', 'probMin', 'search', 'sort'],
    );
    expect(listing['x-svc-capability']).toMatchObject({ permission: 'api-key-read', rateClass: 'read', requiredTier: 'read-only' });
  });
});
