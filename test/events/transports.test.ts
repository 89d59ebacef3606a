// The event transports with real clients: the `ws` WebSocket client and the `eventsource` SSE client against a real
// server. Public market events reach everyone who asks; an agent's private execution:report reaches that agent only;
// a client resumes after a disconnect from the last sequence it handled and sees every later event once, in order;
// bad input is refused plainly. GET /events/discovery describes what it all looks like.
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', EVENTS_HEARTBEAT_MS: '200' } });
  base = await server.runtime.listen();
});
afterAll(async () => server?.close());

const A = '/api/agent/v1';
type Envelope = { id: string; type: string; sequence: string; marketAddress: string | null; private: boolean; data: Record<string, unknown> };
type Message = { op: string; event?: Envelope; [k: string]: unknown };
let idem = 0;

/** A WebSocket client that keeps every message it receives. */
async function connect(key?: string): Promise<{ ws: WebSocket; messages: Message[]; events: () => Envelope[] }> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}${A}/events/ws`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const messages: Message[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data)) as Message));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  await waitFor(() => messages.find((m) => m.op === 'welcome'), { what: 'the welcome message' });
  return { ws, messages, events: () => messages.filter((m) => m.op === 'event').map((m) => m.event!) };
}
const subscribe = async (c: Awaited<ReturnType<typeof connect>>, filter: Record<string, unknown>) => {
  const before = c.messages.filter((m) => m.op === 'subscribed').length;
  c.ws.send(JSON.stringify({ op: 'subscribe', ...filter }));
  return waitFor(() => c.messages.filter((m) => m.op === 'subscribed')[before], { what: 'the subscribed message' });
};

describe('event transports', () => {
  it('publishes the catalog, the envelope and both transports in GET /events/discovery', async () => {
    const res = await server.call('GET', `${A}/events/discovery`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.transports.websocket.url).toBe(`ws://svc.test${A}/events/ws`);
    expect(res.body.transports.sse.url).toBe(`http://svc.test${A}/events/stream`);
    const kinds = Object.fromEntries(res.body.kinds.map((k: { type: string; private: boolean }) => [k.type, k.private]));
    expect(kinds).toMatchObject({ 'market.resolved': false, 'market.voteOpened': false, 'execution:report': true, 'negotiation.countered': true });
    expect(Object.keys(res.body.envelope.fields)).toEqual(['id', 'type', 'sequence', 'timestamp', 'chainId', 'marketAddress', 'private', 'data']);
  });

  it('public events to all, private events to their agent only, and a resume that loses and repeats nothing', async () => {
    const alice = await registerWallet(server, undefined, 'events-alice');
    const bob = await registerWallet(server, undefined, 'events-bob');
    await gas(server, alice.account.address);
    const [a, b, anonymous] = [await connect(alice.key), await connect(bob.key), await connect()];
    expect(a.messages[0]).toMatchObject({ op: 'welcome', authenticated: true, agentId: alice.agentId });
    expect(anonymous.messages[0]).toMatchObject({ op: 'welcome', authenticated: false });
    for (const c of [a, b, anonymous]) await subscribe(c, {});

    const book = await createOrderBookMarket(server, alice, 'Will the events reach their subscribers?', new Date(Date.now() + 7 * 86_400_000));
    const placed = await server.call('POST', `${A}/orderbook/place-order`, { key: alice.key, idempotencyKey: `ev-${++idem}`, body: { market: book.address, outcome: 0, action: 'buy', price: '0.4', shares: '10000000' } });
    expect(placed.status, placed.text).toBe(201);
    for (const c of [a, b, anonymous]) await waitFor(() => c.events().some((e) => e.type === 'market.live' && e.marketAddress === book.address), { what: 'market.live on every connection' });
    await waitFor(() => a.events().some((e) => e.type === 'execution:report'), { what: "alice's execution:report" });
    const live = a.events().find((e) => e.type === 'market.live')!;
    expect(live).toMatchObject({ id: `evt_${live.sequence}`, private: false, marketAddress: book.address, data: { creatorAddress: alice.account.address.toLowerCase() } });
    expect(a.events().find((e) => e.type === 'execution:report')).toMatchObject({ private: true, data: { orderId: placed.body.id } });
    // A heartbeat follows every event already sent: by then, bob and the anonymous client would have had it.
    for (const c of [b, anonymous]) {
      const seen = c.messages.length;
      await waitFor(() => c.messages.slice(seen).some((m) => m.op === 'heartbeat'), { what: 'a heartbeat after the private event' });
      expect(c.events().filter((e) => e.private)).toEqual([]);
    }
    // Sequences are increasing and unique on every connection.
    for (const c of [a, b, anonymous]) {
      const seqs = c.events().map((e) => BigInt(e.sequence));
      expect(seqs).toEqual([...seqs].sort((x, y) => (x < y ? -1 : 1)));
      expect(new Set(seqs).size).toBe(seqs.length);
    }

    // Alice drops; two more orders happen; she resumes from the last sequence she handled and gets exactly those.
    const last = a.events().at(-1)!.sequence;
    a.ws.close();
    for (const price of ['0.41', '0.42']) {
      expect((await server.call('POST', `${A}/orderbook/place-order`, { key: alice.key, idempotencyKey: `ev-${++idem}`, body: { market: book.address, outcome: 0, action: 'buy', price, shares: '1000000' } })).status).toBe(201);
    }
    const again = await connect(alice.key);
    await subscribe(again, { fromSequence: last, kinds: ['execution:report'] });
    const resumed = await waitFor(() => (again.events().length >= 2 ? again.events() : null), { what: 'the two missed execution reports' });
    expect(resumed.every((e) => BigInt(e.sequence) > BigInt(last) && e.type === 'execution:report')).toBe(true);
    const ahead = again.messages.length;
    await waitFor(() => again.messages.slice(ahead).some((m) => m.op === 'heartbeat'), { what: 'a heartbeat after the resume' });
    expect(again.events()).toHaveLength(2); // nothing repeated
    for (const c of [again, b, anonymous]) c.ws.close();
  });

  it('streams the same over SSE, resumes with Last-Event-ID, and refuses bad input plainly', async () => {
    const carol = await registerWallet(server, undefined, 'events-carol');
    await gas(server, carol.account.address);
    const url = (q: string) => `${base}${A}/events/stream${q}`;
    const received: Envelope[] = [];
    const source = new EventSource(url('?kinds=market.*'));
    source.addEventListener('market.live', (m) => received.push(JSON.parse(m.data) as Envelope));
    await waitFor(() => source.readyState === EventSource.OPEN, { what: 'the SSE stream to open' });
    const book = await createOrderBookMarket(server, carol, 'Will SSE carry the live event?', new Date(Date.now() + 7 * 86_400_000));
    const live = await waitFor(() => received.find((e) => e.marketAddress === book.address), { what: 'market.live over SSE' });
    source.close();
    expect(live.private).toBe(false);

    // Resume: everything after the sequence before market.live, which is its market.created and market.live.
    const resumed: Envelope[] = [];
    const again = new EventSource(url(`?kinds=market.*&markets=${book.address}`), {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'Last-Event-ID': String(BigInt(live.sequence) - 3n) } }),
    });
    again.addEventListener('market.created', (m) => resumed.push(JSON.parse(m.data) as Envelope));
    again.addEventListener('market.live', (m) => resumed.push(JSON.parse(m.data) as Envelope));
    await waitFor(() => resumed.some((e) => e.type === 'market.live'), { what: 'the resumed market.live' });
    again.close();
    expect(resumed.map((e) => e.type)).toEqual(['market.created', 'market.live']);

    const bad = await fetch(url('?kinds=market.*&fromSequence=abc'));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('INVALID_QUERY');
    expect((await fetch(url('?color=red'))).status).toBe(400);
    expect((await fetch(url(''), { headers: { authorization: 'Bearer nope' } })).status).toBe(401);

    // WebSocket: a bad key is refused at the upgrade; a bad subscribe is an error message, the connection stays.
    const refused = new WebSocket(`${base.replace(/^http/, 'ws')}${A}/events/ws`, { headers: { authorization: 'Bearer nope' } });
    const status = await new Promise<number>((resolve) => refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(401);
    const elsewhere = new WebSocket(`${base.replace(/^http/, 'ws')}${A}/health`);
    expect(await new Promise<number>((resolve) => elsewhere.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)))).toBe(404);
    const c = await connect();
    c.ws.send(JSON.stringify({ op: 'subscribe', markets: ['not-an-address'] }));
    c.ws.send('not json');
    c.ws.send(JSON.stringify({ op: 'dance' }));
    const errors = await waitFor(() => (c.messages.filter((m) => m.op === 'error').length >= 3 ? c.messages.filter((m) => m.op === 'error') : null), { what: 'three error messages' });
    expect(errors.map((m) => m.code)).toEqual(['INVALID_PAYLOAD', 'MALFORMED_JSON', 'INVALID_PAYLOAD']);
    c.ws.send(JSON.stringify({ op: 'ping' }));
    await waitFor(() => c.messages.some((m) => m.op === 'pong'), { what: 'a pong' });
    c.ws.close();
  });
});

// Last: it closes the server (afterAll's close then does nothing more).
describe('shutdown', () => {
  it('tells a WebSocket subscriber the server is closing, with where to resume, and closes it with 1001', async () => {
    const c = await connect();
    await subscribe(c, {});
    const closed = new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code)));
    await server.close();
    expect(await closed).toBe(1001);
    expect(c.messages.find((m) => m.op === 'closing')).toMatchObject({ op: 'closing', reason: 'server_closing', resumeFrom: expect.stringMatching(/^[0-9]+$/) });
  });
});
