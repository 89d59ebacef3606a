// GET /api/v1/discovery/theses against a real server and database: an order-book market traded through real ledger
// fills, seeded automated markets (trades through the projection's applyTrade) and a forecast frame published by an
// agent. The endpoint answers keyless, picks each live market for the reason its data gives, leaves out halted, taken
// down, quarantined, closed, past-close, unregistered and other-chain markets (and never compares with them), ranks
// by score, writes all 18 locales over the same values, and answers bad input with INVALID_QUERY or
// UNSUPPORTED_CHAIN. Time is a ManualClock the test moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { THESIS_LOCALES } from '../../src/core/theses/locales.ts';
import type { MarketRow } from '../../src/services/markets/records.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { seedMarket, seedTrade, USDC, WAD } from '../support/market-rows.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';
import { nextFullHour } from '../support/time.ts';

const A = '/api/agent/v1';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const clock = new ManualClock(nextFullHour());
let server: TestServer;
let chainId: number;

beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', LEDGER_BATCH_MAX_OPS: '10000', LEDGER_BATCH_INTERVAL_MS: '3600000' } });
  chainId = server.config.chain.id;
});
afterAll(async () => server?.close());

const theses = (query: string) => server.call('GET', `/api/v1/discovery/theses?${query}`);
const pct = (n: number): bigint => (BigInt(Math.round(n * 10)) * WAD) / 1000n;
const ago = (ms: number) => new Date(clock.now().getTime() - ms);
const ahead = (ms: number) => new Date(clock.now().getTime() + ms);

type Thesis = { market: string; kinds: string[]; score: number; rank: number; reasons: { kind: string; text: string; values: Record<string, unknown> }[]; text: string; outcomes: { price: string }[] };
const byMarket = (list: Thesis[]) => new Map(list.map((t) => [t.market.toLowerCase(), t]));

describe('GET /api/v1/discovery/theses', () => {
  const m: Record<string, MarketRow> = {};
  let book: string;
  let frameId: string;

  it('answers an empty list, keyless and cacheable, before any market is live', async () => {
    const res = await theses(`chainId=${chainId}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ locale: 'en-US', dir: 'ltr', chainId, generatedAt: clock.now().toISOString(), theses: [] });
    expect(res.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=300');
    expect(res.headers['content-language']).toBe('en-US');
  });

  it('picks each live market for the reason its data gives, and leaves out the rest', async () => {
    // An order-book market moved by a real ledger fill: 50 % → 65 % on Yes, created just now.
    const [alice, bob] = [await registerWallet(server, undefined, 'theses-alice'), await registerWallet(server, undefined, 'theses-bob')];
    await gas(server, alice.account.address);
    const created = await createOrderBookMarket(server, alice, 'Will the thesis book resolve Yes?', ahead(30 * DAY));
    book = created.address;
    const createdAt = (await server.call('GET', `${A}/discover/markets/${book}`, { key: bob.key })).body.market.createdAt as string;
    clock.set(new Date(createdAt));
    clock.advance(60_000);
    const place = (agent: typeof alice, body: Record<string, unknown>) => server.call('POST', `${A}/orderbook/place-order`, { key: agent.key, idempotencyKey: idemKey('th'), body: { market: book, ...body } });
    expect((await place(alice, { outcome: 0, action: 'buy', price: '0.65', shares: '10000000' })).status).toBe(201);
    expect((await place(bob, { outcome: 1, action: 'buy', price: '0.35', shares: '10000000', tif: 'IOC' })).body.fills).toMatchObject([{ kind: 'MINT' }]);
    clock.advance(HOUR);

    const old = ago(10 * DAY);
    // Moved: 40 % a day ago (a trade before the window), 62.5 % now.
    m.moved = await seedMarket(server, { category: 'CRYPTO', createdAt: old, prices: [pct(40), pct(60)] });
    await seedTrade(server, m.moved, { at: ago(30 * HOUR), pricesAfter: [pct(40), pct(60)] });
    await seedTrade(server, m.moved, { at: ago(2 * HOUR), pricesAfter: [pct(62.5), pct(37.5)] });
    // Busy: 4 trades of 50 USDC in the window, price unchanged.
    m.busy = await seedMarket(server, { category: 'FINANCE', createdAt: old });
    for (let i = 1; i <= 4; i++) await seedTrade(server, m.busy, { at: ago(i * HOUR), cost: 50n * USDC, pricesAfter: [pct(50), pct(50)] });
    // PM collateral (18 decimals): 160 PM over 4 trades.
    m.pmBusy = await seedMarket(server, { category: 'SOCIAL', collateral: 'PM', createdAt: old });
    for (let i = 1; i <= 4; i++) await seedTrade(server, m.pmBusy, { at: ago(i * HOUR), shares: 80n * WAD, cost: 40n * WAD, pricesAfter: [pct(50), pct(50)] });
    // Closing in 6 hours.
    m.closing = await seedMarket(server, { category: 'DAILY_LIFE', createdAt: old, closeTime: ahead(6 * HOUR) });
    // Two politics markets 75 points apart.
    m.low = await seedMarket(server, { category: 'POLITICS', createdAt: old, prices: [pct(10), pct(90)] });
    m.high = await seedMarket(server, { category: 'POLITICS', createdAt: old, prices: [pct(85), pct(15)] });
    // A forecast 30 points above the price, published by an agent.
    m.forecasted = await seedMarket(server, { category: 'FUN', createdAt: old });
    const published = await server.call('POST', `${A}/market-data/frames`, {
      key: alice.key,
      idempotencyKey: idemKey('frame'),
      body: { marketAddress: m.forecasted.address, kind: 'forecast', data: { probabilities: ['0.8', '0.2'], rationale: 'Polls moved.' } },
    });
    expect(published.status, published.text).toBe(201);
    frameId = published.body.frame.id;
    // New: opened two hours ago.
    m.fresh = await seedMarket(server, { category: 'LOCAL', createdAt: ago(2 * HOUR) });
    // Quiet: nothing to say.
    m.quiet = await seedMarket(server, { category: 'OTHER', createdAt: old });
    // Left out though each has a reason (closing in 5 hours, an extreme price): not live, not tradeable or not listed.
    // A live quiet sports market at 40 % would disagree with any of them; it must not.
    m.sportsQuiet = await seedMarket(server, { category: 'SPORTS', createdAt: old, prices: [pct(40), pct(60)] });
    const gone = { category: 'SPORTS', createdAt: old, closeTime: ahead(5 * HOUR), prices: [pct(95), pct(5)] };
    m.halted = await seedMarket(server, { ...gone, controls: { interaction: 'halted' } });
    m.takenDown = await seedMarket(server, { ...gone, controls: { policy: 'taken_down', discovery: 'hidden', interaction: 'halted' } });
    m.quarantined = await seedMarket(server, { ...gone, controls: { discovery: 'quarantined' } });
    m.closedState = await seedMarket(server, { ...gone, state: 'closed' });
    m.proposed = await seedMarket(server, { ...gone, state: 'creator_proposal' });
    m.pastClose = await seedMarket(server, { ...gone, closeTime: ago(60_000) });
    m.unregistered = await seedMarket(server, { ...gone, question: null });
    m.otherChain = await seedMarket(server, { ...gone, chainId: chainId + 1 });

    const res = await theses(`chainId=${chainId}&locale=en-US`);
    expect(res.status, res.text).toBe(200);
    const list = res.body.theses as Thesis[];
    const got = byMarket(list);
    const kinds = (row: MarketRow | string) => got.get(typeof row === 'string' ? row : row.address)?.kinds;
    expect(kinds(book)).toEqual(['price_move', 'new_market']);
    expect(kinds(m.moved!)).toEqual(['price_move']);
    expect(kinds(m.busy!)).toEqual(['volume']);
    expect(kinds(m.pmBusy!)).toEqual(['volume']);
    expect(kinds(m.closing!)).toEqual(['closing_soon']);
    expect(kinds(m.low!)).toEqual(['disagreement']);
    expect(kinds(m.high!)).toEqual(['disagreement']);
    expect(kinds(m.forecasted!)).toEqual(['forecast']);
    expect(kinds(m.fresh!)).toEqual(['new_market']);
    expect(list).toHaveLength(9);
    for (const name of ['quiet', 'sportsQuiet', 'halted', 'takenDown', 'quarantined', 'closedState', 'proposed', 'pastClose', 'unregistered', 'otherChain']) {
      expect(got.has(m[name]!.address), name).toBe(false);
    }

    // Ranked by score, numbered from 1.
    expect(list.map((t) => t.rank)).toEqual(list.map((_, i) => i + 1));
    expect(list.map((t) => t.score)).toEqual([...list.map((t) => t.score)].sort((a, b) => b - a));
    // Full-strength reasons first (ties by address: no volume, the same close), then by strength: closing in 6 of 48
    // hours (0.9125), a 22.5-point move (0.9), the book's 15-point move and newness (0.6 + 0.2), volume (log10 of 200
    // and 160 units over 4), new (0.2).
    const top = [m.low!, m.high!, m.forecasted!].map((r) => r.address).sort();
    expect(list.map((t) => t.market.toLowerCase())).toEqual([...top, m.closing!.address, m.moved!.address, book, m.busy!.address, m.pmBusy!.address, m.fresh!.address]);

    // The numbers each reason cites, raw.
    const values = (row: MarketRow | string, kind: string) => got.get(typeof row === 'string' ? row : row.address)!.reasons.find((r) => r.kind === kind)!.values;
    expect(values(book, 'price_move')).toEqual({ outcome: 0, outcomeLabel: 'Yes', from: '0.5', to: '0.65', change: '0.15', windowHours: 24 });
    expect(got.get(book)!.outcomes.map((o) => o.price)).toEqual(['0.65', '0.35']);
    expect(values(m.moved!, 'price_move')).toMatchObject({ from: '0.4', to: '0.625', change: '0.225' });
    expect(values(m.busy!, 'volume')).toEqual({ volume: '200000000', trades: 4, windowHours: 24, collateralSymbol: 'USDC', collateralDecimals: 6 });
    expect(values(m.pmBusy!, 'volume')).toMatchObject({ volume: (160n * WAD).toString(), collateralSymbol: 'PM', collateralDecimals: 18 });
    expect(values(m.closing!, 'closing_soon')).toEqual({ closeTime: m.closing!.close_time.toISOString(), secondsLeft: 6 * 3600 });
    expect(values(m.low!, 'disagreement')).toMatchObject({ price: '0.1', relatedPrice: '0.85', gap: '0.75', relatedMarket: expect.stringMatching(new RegExp(`^${m.high!.address}$`, 'i')) });
    expect(values(m.forecasted!, 'forecast')).toMatchObject({ frameId, outcome: 0, forecast: '0.8', price: '0.5', gap: '0.3' });
    expect(values(m.fresh!, 'new_market')).toEqual({ createdAt: m.fresh!.created_at.toISOString(), secondsOpen: 2 * 3600, tradeCount: 0 });
    expect(got.get(m.moved!.address)!.text).toBe('“Yes” rose 22.5 points in the last 24 hours, from 40% to 62.5%.');
    expect(got.get(m.busy!.address)!.text).toBe('200 USDC traded in the last 24 hours, over 4 trades.');
  });

  it('writes every locale over the same markets and values, ar-SA right to left', async () => {
    const english = (await theses(`chainId=${chainId}`)).body;
    const strip = (list: Thesis[]) => list.map((t) => ({ ...t, text: '', categoryLabel: '', reasons: t.reasons.map((r) => ({ ...r, text: '' })) }));
    for (const locale of THESIS_LOCALES) {
      const res = await theses(`chainId=${chainId}&locale=${locale}`);
      expect(res.status, `${locale} ${res.text}`).toBe(200);
      expect(res.headers['content-language']).toBe(locale);
      expect(res.body).toMatchObject({ locale, dir: locale === 'ar-SA' ? 'rtl' : 'ltr', chainId });
      expect(strip(res.body.theses), locale).toEqual(strip(english.theses));
      if (locale !== 'en-US') (res.body.theses as Thesis[]).forEach((t, i) => expect(t.text, locale).not.toBe(english.theses[i].text));
    }
    const moved = async (locale: string) => byMarket((await theses(`chainId=${chainId}&locale=${locale}`)).body.theses).get(m.moved!.address)!.text;
    expect(await moved('de-DE')).toBe('„Ja“ ist in den letzten 24 Stunden um 22,5 Prozentpunkte gestiegen, von 40\u00a0% auf 62,5\u00a0%.');
    expect(await moved('ar-SA')).toMatch(/^ارتفع سعر «نعم» بمقدار ٢٢٫٥ نقطة/);
  });

  it('moves with the clock: a day later the move and the volume have left the window', async () => {
    clock.advance(DAY + HOUR);
    const got = byMarket((await theses(`chainId=${chainId}`)).body.theses);
    expect(got.has(m.moved!.address)).toBe(false);
    expect(got.has(m.busy!.address)).toBe(false);
    expect(got.has(m.fresh!.address)).toBe(false);
    expect(got.get(m.low!.address)?.kinds).toEqual(['disagreement']);
    // The forecast is 27 hours old, still within 72 hours; the market that was closing has closed.
    expect(got.get(m.forecasted!.address)?.kinds).toEqual(['forecast']);
    expect(got.has(m.closing!.address)).toBe(false);
  });

  it.each([
    ['', 'query.chainId'],
    ['chainId=abc', 'query.chainId'],
    ['chainId=0', 'query.chainId'],
    ['chainId=-1', 'query.chainId'],
    ['chainId=1.5', 'query.chainId'],
    ['chainId=9007199254740992', 'query.chainId'],
    ['chainId=CHAIN&locale=xx-XX', 'query.locale'],
    ['chainId=CHAIN&locale=en', 'query.locale'],
    ['chainId=CHAIN&locale=en-us', 'query.locale'],
    ['chainId=CHAIN&locale=ar-SA&limit=5', 'query.limit'],
  ])('answers %s with 400 INVALID_QUERY naming %s', async (query, path) => {
    const res = await theses(query.replace('CHAIN', String(chainId)));
    expect(res.status, res.text).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('INVALID_QUERY');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('answers a chain it does not serve with 400 UNSUPPORTED_CHAIN', async () => {
    const res = await theses(`chainId=${chainId + 1}&locale=fr-FR`);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: 'UNSUPPORTED_CHAIN', status: 400 });
  });

  it('is published in the consumer OpenAPI as a public read answering DiscoveryThesesResponse', async () => {
    const doc = (await server.call('GET', '/api/v1/openapi.json')).body;
    const op = doc.paths['/api/v1/discovery/theses'].get;
    expect(op.security).toEqual([]);
    expect(op.parameters.map((p: { name: string; required?: boolean }) => [p.name, p.required ?? false])).toEqual([
      ['chainId', true],
      ['locale', false],
    ]);
    expect(JSON.stringify(op.responses['200'])).toContain('DiscoveryThesesResponse');
    expect(doc.components.schemas.DiscoveryThesesResponse.properties.dir.enum).toEqual(['ltr', 'rtl']);
  });
});
