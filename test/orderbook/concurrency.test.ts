// Placements running at the same time (meaningful on PostgreSQL, where transactions overlap; PGlite runs them
// one after another): placements on two markets whose fills cross two agents both ways never deadlock, and
// one owner's orders on two markets at once never reserve more than it holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket, expectReservationsAgree } from '../support/orderbook.ts';
import { nextFullHour } from '../support/time.ts';

const A = '/api/agent/v1';
const GRANT = 100_000_000n; // 100 play dollars
let server: TestServer;
const clock = new ManualClock(nextFullHour());

beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', LEDGER_BATCH_MAX_OPS: '10000', LEDGER_BATCH_INTERVAL_MS: '3600000', LEDGER_SIGNUP_GRANT: GRANT.toString() },
  });
});
afterAll(async () => server?.close());

type Agent = Awaited<ReturnType<typeof registerWallet>>;
const place = (agent: Agent, market: string, body: Record<string, unknown>) => server.call('POST', `${A}/orderbook/place-order`, { key: agent.key, body: { market, ...body }, idempotencyKey: idemKey('cc') });

describe('concurrent placements', () => {
  let markets: string[];
  beforeAll(async () => {
    const creator = await registerWallet(server, undefined, 'cc-creator');
    await gas(server, creator.account.address);
    const close = new Date(clock.now().getTime() + 30 * 86_400_000);
    markets = [(await createOrderBookMarket(server, creator, 'Will concurrency market one resolve Yes?', close)).address, (await createOrderBookMarket(server, creator, 'Will concurrency market two resolve Yes?', close)).address];
  });

  it('fills that cross two agents on two markets at once all succeed (no deadlock, no 500)', async () => {
    const x = await registerWallet(server, undefined, 'cc-x');
    const y = await registerWallet(server, undefined, 'cc-y');
    const [m1, m2] = markets as [string, string];
    const statuses: number[] = [];
    for (let round = 0; round < 25; round++) {
      // x rests on m2, y on m1; then each takes the other's order at the same moment: both transactions
      // write events for both agents and settle in the ledger.
      expect((await place(x, m2, { outcome: 0, action: 'buy', price: '0.5', shares: '1000000' })).status).toBe(201);
      expect((await place(y, m1, { outcome: 0, action: 'buy', price: '0.5', shares: '1000000' })).status).toBe(201);
      const both = await Promise.all([place(x, m1, { outcome: 1, action: 'buy', price: '0.5', shares: '1000000', tif: 'IOC' }), place(y, m2, { outcome: 1, action: 'buy', price: '0.5', shares: '1000000', tif: 'IOC' })]);
      for (const r of both) {
        statuses.push(r.status);
        if (r.status === 201) expect(r.body.status).toBe('filled');
      }
    }
    expect(statuses.filter((s) => s !== 201)).toEqual([]);
    // Every event of each agent is there, in a gap-free sequence.
    for (const agent of [x, y]) {
      const events = await server.call('POST', `${A}/orderbook/events`, { key: agent.key, body: { after: '0', limit: 200 } });
      const seqs = events.body.events.map((e: { seq: string }) => Number(e.seq));
      expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
      expect(seqs).toHaveLength(25 * 4); // per round: accepted + fill (maker), accepted + fill (taker)
    }
  });

  it("one owner's orders on two markets at once cannot reserve more than it holds", async () => {
    const z = await registerWallet(server, undefined, 'cc-z');
    const [m1, m2] = markets as [string, string];
    // Each bid reserves 60 of the 100 play dollars (120 shares at 50 %, plus the most fee): only one fits.
    const bid = { outcome: 0, action: 'buy', price: '0.5', shares: '120000000' };
    for (let round = 0; round < 10; round++) {
      const both = await Promise.all([place(z, m1, bid), place(z, m2, bid)]);
      expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
      const refused = both.find((r) => r.status === 409)!;
      expect(refused.body.code).toBe('INSUFFICIENT_BALANCE');
      const placed = both.find((r) => r.status === 201)!;
      expect((await server.call('POST', `${A}/orderbook/cancel-order`, { key: z.key, body: { orderId: placed.body.id }, idempotencyKey: idemKey('cc') })).body.status).toBe('cancelled');
    }
  });
});

describe('reservations kept per owner', () => {
  it('hold exactly what the resting orders reserve, after everything above', async () => {
    await expectReservationsAgree(server);
  });
});
