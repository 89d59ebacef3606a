// The data plane (docs/market-data.md) against a real server and database: an agent publishes each kind of frame onto
// a market; the frame, its market.frame event (delivered to a WebSocket subscriber of that market) and the frames read
// agree; a frame that does not fit its market or a closed surface is refused with its code; the per-market frame limit
// and the aggregate backstop answer 429 with RateLimit headers, apart from the write budget; an Idempotency-Key retry
// publishes nothing twice. Time is a ManualClock the test moves; no sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../../src/core/clock.ts';
import { readEventsAfter } from '../../src/services/events/outbox.ts';
import { createMarketDataService } from '../../src/services/market-data/market-data.ts';
import { DATA_PLANE_LIMITS } from '../../src/services/rate-limit/limits.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { seedMarket } from '../support/market-rows.ts';
import { waitFor } from '../support/wait.ts';

const A = '/api/agent/v1';
const clock = new ManualClock(new Date('2026-11-24T12:00:00Z'));
let server: TestServer;
let agent: Awaited<ReturnType<typeof registerWallet>>;

beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
  agent = await registerWallet(server, undefined, 'frames-bot');
});
afterAll(async () => server?.close());

const forecast = (marketAddress: string, probabilities = ['0.62', '0.38']) => ({ marketAddress, kind: 'forecast', data: { probabilities, rationale: 'Polls moved.' } });
const publish = (body: unknown, o: { key?: string; idempotencyKey?: string } = {}) =>
  server.call('POST', `${A}/market-data/frames`, { key: o.key ?? agent.key, idempotencyKey: o.idempotencyKey ?? idemKey('frame'), body });

describe('market-surface frames', () => {
  it('publishes each kind, carries it as market.frame to the market\'s subscribers, and lists it newest first', async () => {
    const market = await seedMarket(server, { question: 'Will the frames reach the surface?' });
    const base = await server.runtime.listen();
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}${A}/events/ws`);
    const received: { op: string; event?: { type: string; marketAddress: string; sequence: string; data: Record<string, unknown> } }[] = [];
    ws.on('message', (m) => received.push(JSON.parse(String(m))));
    await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
    ws.send(JSON.stringify({ op: 'subscribe', kinds: ['market.frame'], markets: [market.address] }));
    await waitFor(() => received.find((m) => m.op === 'subscribed'), { what: 'the subscription' });

    const posted = [
      await publish(forecast(market.address)),
      await publish({ marketAddress: market.address, kind: 'datapoint', data: { label: 'BTC/USD spot', value: '97123.45', unit: 'USD', observedAt: '2026-11-24T11:59:00Z', source: { url: 'https://example.org/btc', name: 'Example' } } }),
      await publish({ marketAddress: market.address, kind: 'evidence', data: { url: 'https://example.org/report', title: 'Quarterly report', stance: 'supports', outcome: 0 } }),
    ];
    for (const res of posted) expect(res.status, res.text).toBe(201);
    const [f1, , f3] = posted.map((r) => r.body.frame);
    expect(f1).toMatchObject({
      chainId: server.config.chain.id,
      marketAddress: market.address,
      kind: 'forecast',
      data: { probabilities: ['0.62', '0.38'], rationale: 'Polls moved.' },
      publisher: { agentId: agent.agentId, name: 'frames-bot', walletAddress: agent.account.address.toLowerCase() },
      publishedAt: clock.now().toISOString(),
    });
    expect(f1.id).toMatch(/^frm_[0-9]+$/);
    expect(posted[0]!.headers['ratelimit-limit']).toBeDefined();

    // The outbox holds one public market.frame per frame, at the sequence the frame names.
    const events = (await readEventsAfter(server.runtime.database.db, 0n, 10_000)).filter((e) => e.type === 'market.frame' && e.marketAddress === market.address);
    expect(events.map((e) => e.seq.toString())).toEqual(posted.map((r) => r.body.frame.sequence));
    expect(events[0]).toMatchObject({ agentId: null, payload: { frameId: f1.id, kind: 'forecast', frame: f1.data, publisher: f1.publisher } });
    // … and the subscriber of that market got all three.
    await waitFor(() => received.filter((m) => m.op === 'event').length >= 3, { what: 'three market.frame events' });
    expect(received.filter((m) => m.op === 'event').map((m) => m.event!.data.frameId)).toEqual(posted.map((r) => r.body.frame.id));
    ws.close();

    const page = await server.call('GET', `${A}/discover/markets/${market.address}/frames?limit=2`, { key: agent.key });
    expect(page.status, page.text).toBe(200);
    expect(page.body.frames.map((f: { id: string }) => f.id)).toEqual([f3.id, posted[1]!.body.frame.id]);
    const rest = await server.call('GET', `${A}/discover/markets/${market.address}/frames?limit=2&cursor=${page.body.nextCursor}`, { key: agent.key });
    expect(rest.body).toEqual({ frames: [f1], nextCursor: null });
    const evidence = await server.call('GET', `${A}/discover/markets/${market.address}/frames?kind=evidence&publisher=${agent.agentId}`, { key: agent.key });
    expect(evidence.body.frames).toEqual([f3]);
    const badCursor = await server.call('GET', `${A}/discover/markets/${market.address}/frames?cursor=evt_1`, { key: agent.key });
    expect([badCursor.status, badCursor.body.code]).toEqual([400, 'INVALID_QUERY']);
  });

  it('refuses a frame that does not fit its market, a closed surface and a caller who is not an agent', async () => {
    const market = await seedMarket(server);
    const cases: [unknown, number, string][] = [
      [forecast(market.address, ['0.6', '0.3']), 400, 'INVALID_PAYLOAD'],
      [forecast(market.address, ['0.5', '0.3', '0.2']), 400, 'INVALID_PAYLOAD'],
      [forecast(market.address, ['1.5', '-0.5']), 400, 'INVALID_PAYLOAD'],
      [{ marketAddress: market.address, kind: 'evidence', data: { url: 'https://example.org', title: 'x', stance: 'contradicts' } }, 400, 'INVALID_PAYLOAD'],
      [{ marketAddress: market.address, kind: 'evidence', data: { url: 'https://example.org', title: 'x', stance: 'supports', outcome: 2 } }, 400, 'INVALID_PAYLOAD'],
      [{ marketAddress: market.address, kind: 'evidence', data: { url: 'javascript:alert(1)', title: 'x', stance: 'context' } }, 400, 'INVALID_PAYLOAD'],
      [{ marketAddress: market.address, kind: 'rumour', data: {} }, 400, 'INVALID_PAYLOAD'],
      [{ ...forecast(market.address), extra: true }, 400, 'INVALID_PAYLOAD'],
      [forecast('0x00000000000000000000000000000000000000aa'), 404, 'MARKET_NOT_FOUND'],
      [{ ...forecast(market.address), chainId: 1 }, 400, 'UNSUPPORTED_CHAIN'],
    ];
    for (const [body, status, code] of cases) {
      const res = await publish(body);
      expect([res.status, res.body.code], JSON.stringify(body)).toEqual([status, code]);
    }
    for (const closed of [await seedMarket(server, { state: 'resolved' }), await seedMarket(server, { state: 'void' }), await seedMarket(server, { question: null }), await seedMarket(server, { controls: { policy: 'taken_down' } })]) {
      const res = await publish(forecast(closed.address));
      expect([res.status, res.body.code]).toEqual([409, 'MARKET_SURFACE_CLOSED']);
    }
    const operator = await publish(forecast(market.address), { key: await server.key('execute') });
    expect([operator.status, operator.body.code]).toEqual([403, 'FORBIDDEN']);
    const readOnly = await publish(forecast(market.address), { key: await server.key('read-only') });
    expect([readOnly.status, readOnly.body.code]).toEqual([403, 'INSUFFICIENT_TIER']);
    const anonymous = await server.call('POST', `${A}/market-data/frames`, { idempotencyKey: idemKey(), body: forecast(market.address) });
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'API_KEY_REQUIRED']);
    const listed = await server.call('GET', `${A}/discover/markets/${market.address}/frames`, { key: agent.key });
    expect(listed.body.frames).toEqual([]);
  });

  it('answers a retried publish with the same frame and publishes it once', async () => {
    const market = await seedMarket(server);
    const key = idemKey('retry');
    const first = await publish(forecast(market.address), { idempotencyKey: key });
    const again = await publish(forecast(market.address), { idempotencyKey: key });
    expect(first.status).toBe(201);
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(again.body).toEqual(first.body);
    const listed = await server.call('GET', `${A}/discover/markets/${market.address}/frames`, { key: agent.key });
    expect(listed.body.frames).toHaveLength(1);
  });

  it('enforces the per-market frame limit with 429 and RateLimit headers, apart from other markets and the write budget', async () => {
    const me = await server.call('GET', `${A}/me`, { key: agent.key });
    const limit = me.body.dataPlane.framesPerMarketPerMinute as number;
    expect(me.body.dataPlane).toEqual(DATA_PLANE_LIMITS[me.body.tier as 'execute']);
    expect(me.body.rateLimits.dataPerMinute).toBe(me.body.dataPlane.dataPerMinute);
    clock.advance(120_000); // a fresh window
    const [busy, other] = [await seedMarket(server), await seedMarket(server)];
    for (let i = 1; i <= limit; i++) {
      const res = await publish(forecast(busy.address));
      expect(res.status, res.text).toBe(201);
      expect(res.headers['ratelimit-remaining']).toBe(String(limit - i));
    }
    const refused = await publish(forecast(busy.address));
    expect([refused.status, refused.body.code, refused.body.budget]).toEqual([429, 'RATE_LIMITED', 'frames-per-market']);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers['ratelimit-reset']).toBe(String(Math.ceil(clock.now().getTime() / 1000) + 60));
    // Another market still takes frames, and the write budget was never spent.
    expect((await publish(forecast(other.address))).status).toBe(201);
    const write = await server.call('POST', `${A}/trade/quote`, { key: agent.key, body: { marketAddress: other.address, outcome: 0, shares: '1000000' } });
    expect(write.headers['ratelimit-remaining']).toBe(String(Number(write.headers['ratelimit-limit']) - 1));
    // A minute later the market's limit has room again.
    clock.advance(60_000);
    expect((await publish(forecast(busy.address))).status).toBe(201);
  });

  it('enforces the aggregate backstop across markets', async () => {
    const limits = { 'read-only': { framesPerMarketPerMinute: 0, dataPerMinute: 0 }, propose: { framesPerMarketPerMinute: 5, dataPerMinute: 3 }, execute: { framesPerMarketPerMinute: 5, dataPerMinute: 3 } };
    const { db } = server.runtime.database;
    const service = createMarketDataService({ db, clock, rateLimits: server.runtime.services.rateLimits, limits });
    const markets = [await seedMarket(server), await seedMarket(server), await seedMarket(server), await seedMarket(server)];
    const caller = { agentId: agent.agentId, tier: 'execute' as const };
    const frame = { kind: 'forecast' as const, data: { probabilities: ['0.5', '0.5'] } };
    clock.advance(120_000);
    for (const m of markets.slice(0, 3)) await service.publish(caller, { market: m.address, frame });
    await expect(service.publish(caller, { market: markets[3]!.address, frame })).rejects.toMatchObject({ code: 'RATE_LIMITED', extensions: { budget: 'data' } });
  });

  it('describes the data plane in GET /market-data/discovery, with a renderer for every kind', async () => {
    const doc = await server.call('GET', `${A}/market-data/discovery`);
    expect(doc.status, doc.text).toBe(200);
    expect(doc.body.kinds.map((k: { kind: string }) => k.kind)).toEqual(['forecast', 'datapoint', 'evidence']);
    expect(doc.body.publish.url).toBe(`http://svc.test${A}/market-data/frames`);
    expect(doc.body.limits.tiers).toEqual(Object.entries(DATA_PLANE_LIMITS).map(([tier, l]) => ({ tier, ...l })));
    const rendererDoc = await server.call('GET', `${A}/discover/renderers`, { key: agent.key });
    expect(rendererDoc.status, rendererDoc.text).toBe(200);
    const renderers = rendererDoc.body.renderers.map((r: { id: string }) => r.id);
    for (const k of doc.body.kinds) expect(renderers).toContain(k.renderer);
    const kinds = (await server.call('GET', `${A}/events/discovery`)).body.kinds.map((k: { type: string }) => k.type);
    expect(kinds).toContain('market.frame');
  });
});
