// The operator's control edges on all four axes (docs/markets.md "Controls"), against a real server and database:
// each axis an edge moves is one market.controlsChanged with isTradeable recomputed, and the reads follow —
// quarantine and takedown leave the listings, graduation stays listed, a mutation lock closes the market's surface to
// frames and comments, a takedown halts trading and is refused any edge but reinstate. Markets are seeded rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEventsAfter } from '../../src/services/events/outbox.ts';
import { addComment } from '../../src/services/markets/comments.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { randomAddress, seedMarket } from '../support/market-rows.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';

const A = '/api/agent/v1';
let server: TestServer;
let agent: Awaited<ReturnType<typeof registerWallet>>;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
  agent = await registerWallet(server, undefined, 'controls-bot');
});
afterAll(async () => server?.close());

const chainId = () => server.config.chain.id;
const edge = (address: string, e: Parameters<TestServer['runtime']['services']['lifecycle']['setControl']>[2], reason: string | null = null) =>
  server.runtime.services.lifecycle.setControl(chainId(), address, e, reason);
const detail = async (address: string) => (await server.call('GET', `${A}/discover/markets/${address}`, { key: agent.key })).body.market;
const listed = async (address: string) => (await server.call('GET', `${A}/discover/markets?address=${address}`, { key: agent.key })).body.markets.length === 1;
const controlEvents = async (address: string) =>
  (await readEventsAfter(server.runtime.database.db, 0n, 100_000)).filter((e) => e.type === 'market.controlsChanged' && e.marketAddress === address).map((e) => e.payload);
const frame = (address: string) =>
  server.call('POST', `${A}/market-data/frames`, { key: agent.key, idempotencyKey: idemKey('ctl'), body: { marketAddress: address, kind: 'forecast', data: { probabilities: ['0.5', '0.5'] } } });

describe('control edges', () => {
  it('quarantine leaves the listings but not trading; graduation waits for release and stays listed', async () => {
    const m = await seedMarket(server);
    expect(await listed(m.address)).toBe(true);
    expect(await edge(m.address, 'quarantine', 'REVIEW')).toMatchObject({ changes: [{ axis: 'discovery', previousState: 'listed', newState: 'quarantined' }], isTradeable: true });
    expect(await listed(m.address)).toBe(false);
    expect(await detail(m.address)).toMatchObject({ isTradeable: true, controls: { discovery: 'quarantined' } });
    await expect(edge(m.address, 'graduate')).rejects.toMatchObject({ code: 'MARKET_CONTROL_REFUSED' });
    await edge(m.address, 'release');
    expect((await edge(m.address, 'graduate')).controls.discovery).toBe('graduated');
    expect(await listed(m.address)).toBe(true);
    // An edge that changes nothing emits nothing.
    expect((await edge(m.address, 'graduate')).changes).toEqual([]);
    expect(await controlEvents(m.address)).toEqual([
      { axis: 'discovery', previousState: 'listed', newState: 'quarantined', reasonCode: 'REVIEW', isTradeable: true },
      { axis: 'discovery', previousState: 'quarantined', newState: 'listed', reasonCode: null, isTradeable: true },
      { axis: 'discovery', previousState: 'listed', newState: 'graduated', reasonCode: null, isTradeable: true },
    ]);
  });

  it('a mutation lock closes the surface to frames and comments until unlocked', async () => {
    const m = await seedMarket(server);
    await edge(m.address, 'lock', 'DISPUTED_CONTENT');
    const refused = await frame(m.address);
    expect([refused.status, refused.body.code]).toEqual([409, 'MARKET_SURFACE_CLOSED']);
    const { db } = server.runtime.database;
    await expect(addComment(db, server.runtime.clock, { market: m.address, author: randomAddress(), body: 'hello' })).rejects.toMatchObject({ code: 'MARKET_SURFACE_CLOSED' });
    expect((await detail(m.address)).isTradeable).toBe(true);
    await edge(m.address, 'unlock');
    expect((await frame(m.address)).status).toBe(201);
    await addComment(db, server.runtime.clock, { market: m.address, author: randomAddress(), body: 'hello again' });
  });

  it('a takedown cascades over the other axes, halts trading, and only reinstate undoes it', async () => {
    const m = await seedMarket(server);
    const down = await edge(m.address, 'takedown', 'POLICY_VIOLATION');
    expect(down).toMatchObject({ controls: { policy: 'taken_down', discovery: 'hidden', mutation: 'locked', interaction: 'halted' }, isTradeable: false });
    expect((await controlEvents(m.address)).map((e) => [e.axis, e.newState, e.isTradeable])).toEqual([
      ['policy', 'taken_down', false],
      ['discovery', 'hidden', false],
      ['mutation', 'locked', false],
      ['interaction', 'halted', false],
    ]);
    expect(await listed(m.address)).toBe(false);
    expect(await detail(m.address)).toMatchObject({ isTradeable: false, controls: { policy: 'taken_down' } });
    const quote = await server.call('POST', `${A}/trade/quote`, { key: agent.key, body: { market: m.address, outcome: 0, side: 'buy', shares: '1000000' } });
    expect(quote.body.code).toBe('MARKET_NOT_TRADEABLE');
    expect((await frame(m.address)).body.code).toBe('MARKET_SURFACE_CLOSED');
    for (const e of ['unfreeze', 'unlock', 'quarantine', 'graduate', 'release'] as const) {
      await expect(edge(m.address, e), e).rejects.toMatchObject({ code: 'MARKET_CONTROL_REFUSED' });
    }
    await expect(edge(m.address, 'reinstate')).resolves.toMatchObject({ controls: { policy: 'active', discovery: 'listed', interaction: 'halted' }, isTradeable: false });
    await expect(edge(m.address, 'reinstate')).rejects.toMatchObject({ code: 'MARKET_CONTROL_REFUSED' });
    expect((await edge(m.address, 'unfreeze')).isTradeable).toBe(true);
    await expect(edge(randomAddress(), 'halt')).rejects.toMatchObject({ code: 'MARKET_NOT_FOUND' });
  });

  it("a takedown of an order book cancels its resting orders in the same step, and the book takes no new ones", async () => {
    await gas(server, agent.account.address);
    const book = await createOrderBookMarket(server, agent, 'Will the takedown clear the book?', new Date(Date.now() + 7 * 86_400_000));
    const order = { market: book.address, outcome: 0, action: 'buy', price: '0.4', shares: '5000000' };
    const placed = await server.call('POST', `${A}/orderbook/place-order`, { key: agent.key, idempotencyKey: idemKey('ob'), body: order });
    expect([placed.status, placed.body.status], placed.text).toEqual([201, 'resting']);
    await edge(book.address, 'takedown', 'POLICY_VIOLATION');
    const mine = await server.call('GET', `${A}/orderbook/orders?market=${book.address}`, { key: agent.key });
    expect(mine.body.orders.find((o: { id: string }) => o.id === placed.body.id)).toMatchObject({ status: 'cancelled', remaining: '0' });
    const events = await server.call('POST', `${A}/orderbook/events`, { key: agent.key, body: {} });
    expect(JSON.stringify(events.body)).toContain('MARKET_TAKEN_DOWN');
    const refused = await server.call('POST', `${A}/orderbook/place-order`, { key: agent.key, idempotencyKey: idemKey('ob'), body: order });
    expect([refused.status, refused.body.code]).toEqual([409, 'MARKET_NOT_TRADEABLE']);
  });
});
