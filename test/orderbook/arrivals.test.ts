// A place-order tells the order book it is on its way as it arrives, so the next round of placements waits for it
// (src/services/orderbook/orders/arrivals.ts, docs/orderbook.md session 27), and says it got there on every path: placed,
// refused at its handler, refused before it (no key, a bad body, a spent rate limit, a replay). A path that forgot
// would leave every later round waiting its longest for a placement that never comes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { RATE_LIMITS } from '../../src/services/rate-limit/limits.ts';
import { registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';

const A = '/api/agent/v1';
const clock = new ManualClock(new Date());
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', LEDGER_BATCH_INTERVAL_MS: '3600000' } });
});
afterAll(async () => server?.close());

const onTheWay = () => server.runtime.services.orderbook.stats().arriving;

describe('place-orders on their way to a queue', () => {
  it('are none once each is answered, whatever answered it', async () => {
    const agent = await registerWallet(server, undefined, 'arrivals');
    await gas(server, agent.account.address);
    const market = await createOrderBookMarket(server, agent, 'Will every placement say it got there?', new Date(clock.now().getTime() + 7 * 86_400_000));
    const order = { market: market.address, outcome: 0, action: 'buy', price: '0.4', shares: '10000000' };
    const place = (idempotencyKey: string | undefined, body: unknown) => server.call('POST', `${A}/orderbook/place-order`, { key: agent.key, idempotencyKey, body, unchecked: true });

    // Placed, and its replay; several at once.
    expect((await place('arrivals-1', order)).status).toBe(201);
    expect((await place('arrivals-1', order)).headers['idempotent-replayed']).toBe('true');
    const together = await Promise.all([2, 3, 4].map((n) => place(`arrivals-${n}`, order)));
    expect(together.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(onTheWay()).toBe(0);
    // Refused by its handler (no such market), for a bad body, and for no key.
    expect((await place('arrivals-5', { ...order, market: '0x00000000000000000000000000000000000000aa' })).status).toBe(404);
    expect((await place('arrivals-6', { ...order, price: 'cheap' })).status).toBe(400);
    expect((await place(undefined, order)).status).toBe(400);
    expect(onTheWay()).toBe(0);
    // Refused by the rate limit: the rest of the key's write budget for the minute spent on bad bodies, then an order.
    let spent = false;
    for (let i = 0; i <= RATE_LIMITS.execute.write && !spent; i++) {
      const answer = await place(`spend-${i}`, { ...order, price: 'cheap' });
      spent = answer.status === 429;
      if (!spent) expect(answer.status).toBe(400);
    }
    expect(spent).toBe(true);
    expect((await place('arrivals-7', order)).status).toBe(429);
    expect(onTheWay()).toBe(0);
  });
});
