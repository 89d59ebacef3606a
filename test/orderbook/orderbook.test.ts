// The play-money order-book loop end to end: two wallet agents (signup grant from the ledger) trade an
// ORDERBOOK market created through the negotiate loop (registered on chain by the order-book factory); place, cancel and confirm-cancel over REST;
// fills settle in the ledger, the batch is committed on chain, and each agent's ledger proof verifies
// against the contract's root. Then the fill allowance: the 402 boundary, cancels still accepted, and
// the monthly reset on a moved clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { verifyProof } from '../../src/core/ledger/merkle.ts';
import { outcomeAsset } from '../../src/core/ledger/types.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket as createOrderBookMarketVia, expectReservationsAgree } from '../support/orderbook.ts';
import { nextFullHour } from '../support/time.ts';

const A = '/api/agent/v1';
const GRANT = 1_000_000_000n; // 1000.000000 play dollars (LEDGER_SIGNUP_GRANT)
let server: TestServer;
// The service clock starts at the real time (test/support/time.ts); months are counted from it.
const START = nextFullHour();
const clock = new ManualClock(START);
/** The first instant of the UTC month `k` months after START's. */
const monthAfterStart = (k: number) => new Date(Date.UTC(START.getUTCFullYear(), START.getUTCMonth() + k, 1));

beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: {
      REGISTRATION_PATHS: 'wallet',
      TRUST_PROXY: 'true',
      LEDGER_BATCH_MAX_OPS: '10000',
      LEDGER_BATCH_INTERVAL_MS: '3600000',
      LEDGER_SIGNUP_GRANT: GRANT.toString(),
      FILLS_FREE_PER_MONTH: '3',
    },
  });
});
afterAll(async () => server?.close());

const post = (key: string, path: string, body: unknown, idempotencyKey: string | undefined = idemKey('ob')) => server.call('POST', `${A}${path}`, { key, body, idempotencyKey });

const createOrderBookMarket = (agent: Awaited<ReturnType<typeof registerWallet>>, question: string) =>
  createOrderBookMarketVia(server, agent, question, new Date(clock.now().getTime() + 60 * 86_400_000));

describe('order-book loop', () => {
  it('trades between two wallet agents, settles fills in the ledger and proves the balances on chain', async () => {
    const alice = await registerWallet(server, undefined, 'alice');
    const bob = await registerWallet(server, undefined, 'bob');
    await gas(server, alice.account.address);
    const market = await createOrderBookMarket(alice, 'Will the order-book test market resolve Yes?');
    expect(market.marketId).toBeGreaterThanOrEqual(1n);
    const listed = await server.call('GET', `${A}/discover/markets?pricingModel=ORDERBOOK`, { key: alice.key });
    expect(listed.body.markets.map((m: { address: string }) => m.address.toLowerCase())).toContain(market.address);

    // Alice bids 10 Yes at 60%; Bob buys 6 No at 40%: 6 complete sets are minted at Alice's price. Prices are
    // decimal strings, shares base units (one share = 1000000), as on every surface (docs/units.md).
    const bid = await post(alice.key, '/orderbook/place-order', { market: market.address, outcome: 0, action: 'buy', price: '0.6', shares: '10000000' });
    expect(bid.status).toBe(201);
    expect(bid.body).toMatchObject({ status: 'resting', price: '0.6', shares: '10000000', filled: '0', remaining: '10000000', cancelled: '0', reserved: (10n * 6000n * 100n + 30_000n).toString() });
    // A sell needs the shares: Bob holds none yet. The depth shows Alice's bid on the outcome-0 axis.
    const noShares = await post(bob.key, '/orderbook/place-order', { market: market.address, outcome: 1, action: 'sell', price: '0.5', shares: '1000000' });
    expect(noShares.status).toBe(409);
    expect(noShares.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(noShares.body).toMatchObject({ required: '1000000', available: '0' });
    const depth = await server.call('GET', `${A}/discover/markets/${market.address}/depth`, { key: bob.key });
    expect(depth.body).toMatchObject({ kind: 'orderbook', tradeable: true, bids: [{ price: '0.6', shares: '10000000' }], asks: [] });
    const take = await post(bob.key, '/orderbook/place-order', { market: market.address, outcome: 1, action: 'buy', price: '0.4', shares: '6000000', tif: 'IOC' });
    expect(take.status).toBe(201);
    expect(take.body).toMatchObject({ status: 'filled', filled: '6000000', remaining: '0', cancelled: '0' });
    expect(take.body.fills).toMatchObject([{ role: 'taker', kind: 'MINT', outcome: 0, price: '0.6', shares: '6000000', fee: '12000', final: false }]);

    // A post-only order that would match is refused whole; an unknown or foreign order is 404.
    const crossing = await post(bob.key, '/orderbook/place-order', { market: market.address, outcome: 1, action: 'buy', price: '0.4', shares: '1000000', postOnly: true });
    expect(crossing.body).toMatchObject({ status: 'rejected', reason: 'POST_ONLY_WOULD_MATCH', remaining: '0', cancelled: '1000000', fills: [] });
    expect((await post(bob.key, '/orderbook/cancel-order', { orderId: bid.body.id })).body.code).toBe('ORDER_NOT_FOUND');

    // Alice cancels the rest: nothing remains, the 4 shares left are cancelled. The cancellation is final once the
    // fill's batch is on chain.
    const cancelled = await post(alice.key, '/orderbook/cancel-order', { orderId: bid.body.id });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', filled: '6000000', remaining: '0', cancelled: '4000000', reserved: '0' });
    expect((await post(alice.key, '/orderbook/cancel-order', { orderId: bid.body.id })).body.status).toBe('cancelled');
    const early = await post(alice.key, '/orderbook/confirm-cancel', { orderId: bid.body.id }, undefined);
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('ORDER_CANCEL_PENDING');

    const batch = await server.runtime.services.ledgerBatcher.flush({ force: true });
    expect(batch).not.toBeNull();
    const confirmed = await post(alice.key, '/orderbook/confirm-cancel', { orderId: bid.body.id }, undefined);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ final: true, fills: [{ role: 'maker', final: true }] });

    // Order events close every gap: accepted, fill (final now), cancelled — in Alice's own sequence.
    const events = await post(alice.key, '/orderbook/events', { after: '0', limit: 50 }, undefined);
    expect(events.body.events.map((e: { type: string }) => e.type)).toEqual(['accepted', 'fill', 'cancelled']);
    expect(events.body.events[0]).toMatchObject({ price: '0.6', shares: '10000000' });
    expect(events.body.events[1]).toMatchObject({ final: true, role: 'maker', price: '0.6', shares: '6000000', remaining: '4000000' });
    expect(events.body.events[2]).toMatchObject({ reason: 'CANCELLED_BY_OWNER', cancelled: '4000000', remaining: '0' });
    expect(events.body.events[0]).not.toHaveProperty('priceBps');
    const page = await post(alice.key, '/orderbook/events', { after: events.body.events[0].seq, limit: 1 }, undefined);
    expect(page.body).toMatchObject({ hasMore: true, events: [{ type: 'fill' }] });

    // Both ledger proofs verify against the root the contract holds.
    const abi = loadArtifact('LedgerCommitment').abi;
    const chainRoot = (await server.runtime.services.chain.client.readContract({ address: server.runtime.services.ledgerBatcher.contract, abi, functionName: 'ledgerRoot' })) as Hex;
    for (const [agent, expected] of [
      [alice, { '0': (GRANT - 6n * 6000n * 100n).toString(), [outcomeAsset(market.marketId, 0).toString()]: '6' }],
      [bob, { '0': (GRANT - 6n * 4000n * 100n - 12_000n).toString(), [outcomeAsset(market.marketId, 1).toString()]: '6' }],
    ] as const) {
      const proof = await server.call('GET', `/api/v1/ledger/proof/${agent.account.address}`);
      expect(proof.body.root).toBe(chainRoot);
      expect(Object.fromEntries(proof.body.balances.map((b: { assetId: string; balance: string }) => [b.assetId, b.balance]))).toEqual(expected);
      for (const b of proof.body.balances as { leaf: Hex; proof: Hex[] }[]) expect(verifyProof(b.proof, chainRoot, b.leaf)).toBe(true);
    }
  });

  it('answers 402 FILL_ALLOWANCE_EXHAUSTED for a new order once the fills run out, still accepts cancels, and resets next month', async () => {
    const carol = await registerWallet(server, undefined, 'carol');
    const dave = await registerWallet(server, undefined, 'dave');
    await gas(server, carol.account.address);
    const market = await createOrderBookMarket(carol, 'Will the fill-allowance market resolve Yes?');
    const order = (agent: typeof carol, body: Record<string, unknown>) => post(agent.key, '/orderbook/place-order', { market: market.address, ...body });

    // Carol rests 10 Yes at 50%; Dave takes 1 share three times: each fill counts once for each of them.
    const resting = await order(carol, { outcome: 0, action: 'buy', price: '0.5', shares: '10000000' });
    for (let i = 0; i < 3; i++) expect((await order(dave, { outcome: 1, action: 'buy', price: '0.5', shares: '1000000', tif: 'IOC' })).body.status).toBe('filled');
    const me = await server.call('GET', `${A}/me`, { key: dave.key });
    expect(me.body.fills).toMatchObject({ freePerMonth: 3, freeUsed: 3, remaining: 0 });

    const refused = await order(dave, { outcome: 1, action: 'buy', price: '0.5', shares: '1000000' });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('FILL_ALLOWANCE_EXHAUSTED');
    expect((await order(carol, { outcome: 0, action: 'buy', price: '0.4', shares: '1000000' })).status).toBe(402);
    // Cancels are always accepted; resting orders are never touched by the allowance.
    expect((await post(carol.key, '/orderbook/cancel-order', { orderId: resting.body.id })).body.status).toBe('cancelled');

    clock.set(new Date(monthAfterStart(1).getTime() + 1_000));
    const again = await order(dave, { outcome: 1, action: 'buy', price: '0.5', shares: '1000000' });
    expect(again.status).toBe(201);
    expect((await server.call('GET', `${A}/me`, { key: dave.key })).body.fills).toMatchObject({ freeUsed: 0, remaining: 3, resetsOn: monthAfterStart(2).toISOString() });
  });

  it('cancels the resting orders of a market when it closes, releasing their reservations', async () => {
    const frank = await registerWallet(server, undefined, 'frank');
    const grace = await registerWallet(server, undefined, 'grace');
    await gas(server, frank.account.address);
    const market = await createOrderBookMarketVia(server, frank, 'Will the closing book resolve Yes?', new Date(clock.now().getTime() + 2 * 3_600_000));
    const bid = await post(frank.key, '/orderbook/place-order', { market: market.address, outcome: 0, action: 'buy', price: '0.4', shares: '5000000' });
    const other = await post(grace.key, '/orderbook/place-order', { market: market.address, outcome: 1, action: 'buy', price: '0.3', shares: '2000000' });
    expect([bid.body.status, other.body.status]).toEqual(['resting', 'resting']);

    clock.advance(3 * 3_600_000);
    expect((await server.runtime.services.lifecycle.tick()).closed).toBeGreaterThanOrEqual(1);
    for (const [agent, order, remaining] of [
      [frank, bid.body, '5000000'],
      [grace, other.body, '2000000'],
    ] as const) {
      const events = (await post(agent.key, '/orderbook/events', { after: '0', limit: 200 }, undefined)).body.events as { type: string; orderId: string; reason?: string; cancelled?: string }[];
      expect(events.filter((e) => e.orderId === order.id).map((e) => e.type)).toEqual(['accepted', 'cancelled']);
      expect(events.find((e) => e.orderId === order.id && e.type === 'cancelled')).toMatchObject({ reason: 'MARKET_CLOSED', cancelled: remaining });
      expect((await post(agent.key, '/orderbook/confirm-cancel', { orderId: order.id }, undefined)).body).toMatchObject({ final: true, status: 'cancelled', reason: 'MARKET_CLOSED', remaining: '0', cancelled: remaining, reserved: '0' });
    }
    const depth = await server.call('GET', `${A}/discover/markets/${market.address}/depth`, { key: frank.key });
    expect(depth.body).toMatchObject({ kind: 'orderbook', tradeable: false, bids: [], asks: [] });
    const late = await post(grace.key, '/orderbook/place-order', { market: market.address, outcome: 1, action: 'buy', price: '0.3', shares: '1000000' });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('MARKET_NOT_TRADEABLE');
  });

  it('takes prices as decimals on the tick and shares as base units of whole shares, and nothing else', async () => {
    const kim = await registerWallet(server, undefined, 'kim');
    const body = { market: `0x${'ab'.repeat(20)}`, outcome: 0, action: 'buy', price: '0.5', shares: '1000000' };
    for (const [change, path] of [
      [{ price: '0.575' }, 'price'],
      [{ price: '0.005' }, 'price'],
      [{ price: '0' }, 'price'],
      [{ price: '1' }, 'price'],
      [{ price: '50' }, 'body.price'],
      [{ price: 0.5 }, 'body.price'],
      [{ shares: '1500000' }, 'shares'],
      [{ shares: '999999' }, 'shares'],
      [{ shares: '10' }, 'shares'],
    ] as const) {
      const res = await post(kim.key, '/orderbook/place-order', { ...body, ...change });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.body.code).toBe('INVALID_PAYLOAD');
      if (path.startsWith('body.')) expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
      else expect(res.body.detail).toMatch(new RegExp(`^${path} `));
    }
    // The old fields are gone: priceBps is an unknown field.
    const old = await post(kim.key, '/orderbook/place-order', { ...body, price: undefined, priceBps: 5000 });
    expect(old.status).toBe(400);
    expect(old.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['body.price', 'body.priceBps']));
  });

  it("lists the caller's own orders newest first, by market and status, a page at a time, over REST and MCP", async () => {
    const henry = await registerWallet(server, undefined, 'henry');
    const ivy = await registerWallet(server, undefined, 'ivy');
    const jack = await registerWallet(server, undefined, 'jack');
    await gas(server, henry.account.address);
    const market = await createOrderBookMarket(henry, 'Will the order listing market resolve Yes?');
    const place = async (agent: typeof henry, body: Record<string, unknown>) => {
      const res = await post(agent.key, '/orderbook/place-order', { market: market.address, ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as { id: string; status: string };
    };
    const list = async (agent: typeof henry, query = '') => {
      const res = await server.call('GET', `${A}/orderbook/orders${query}`, { key: agent.key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { orders: { id: string; status: string; filled: string; remaining: string; cancelled: string; fills: unknown[] }[]; nextCursor: string | null };
    };
    const ids = (page: { orders: { id: string }[] }) => page.orders.map((o) => o.id);

    // Henry bids 10 Yes at 60 %; Ivy takes 4 of them (a MINT); Henry cancels the other 6.
    const bid = await place(henry, { outcome: 0, action: 'buy', price: '0.6', shares: '10000000' });
    const take = await place(ivy, { outcome: 1, action: 'buy', price: '0.4', shares: '4000000', tif: 'IOC' });
    expect(take.status).toBe('filled');
    // Henry's second bid rests; his FOK buy of No at 30 % (an ask at 70 % on the Yes axis) finds nothing to fill: rejected.
    const second = await place(henry, { outcome: 0, action: 'buy', price: '0.5', shares: '3000000' });
    const rejected = await place(henry, { outcome: 1, action: 'buy', price: '0.3', shares: '1000000', tif: 'FOK' });
    expect(rejected.status).toBe('rejected');
    expect((await post(henry.key, '/orderbook/cancel-order', { orderId: bid.id })).body).toMatchObject({ status: 'cancelled', remaining: '0' });

    const all = await list(henry);
    expect(ids(all)).toEqual([rejected.id, second.id, bid.id]);
    expect(all.nextCursor).toBeNull();
    expect(all.orders[2]).toMatchObject({ status: 'cancelled', reason: 'CANCELLED_BY_OWNER', price: '0.6', shares: '10000000', filled: '4000000', remaining: '0', cancelled: '6000000', reserved: '0' });
    expect(all.orders[2]!.fills).toMatchObject([{ role: 'maker', counterpartyOrderId: take.id, price: '0.6', shares: '4000000' }]);
    expect(all.orders[1]).toMatchObject({ status: 'resting', filled: '0', remaining: '3000000', cancelled: '0' });
    expect(all.orders[0]).toMatchObject({ status: 'rejected', reason: 'FOK_NOT_FILLABLE', filled: '0', remaining: '0', cancelled: '1000000' });

    // A row cancelled before the rule that zeroes it kept its remainder: it still reads 0 (nothing rests).
    await server.runtime.database.db.updateTable('orders').set({ remaining: '6' }).where('id', '=', bid.id).execute();
    expect((await list(henry, '?status=cancelled')).orders).toMatchObject([{ id: bid.id, remaining: '0', cancelled: '6000000' }]);

    // Each filter: status, market (any case), both.
    expect(ids(await list(henry, '?status=resting'))).toEqual([second.id]);
    expect(ids(await list(henry, '?status=cancelled'))).toEqual([bid.id]);
    expect(ids(await list(henry, '?status=rejected'))).toEqual([rejected.id]);
    expect(ids(await list(henry, '?status=filled'))).toEqual([]);
    expect(ids(await list(henry, `?market=${market.address.toUpperCase().replace('0X', '0x')}`))).toEqual([rejected.id, second.id, bid.id]);
    expect(ids(await list(henry, `?market=0x${'cd'.repeat(20)}`))).toEqual([]);
    expect(ids(await list(henry, `?market=${market.address}&status=resting`))).toEqual([second.id]);
    // Pages: newest first, the cursor continues exactly where the page ended.
    const first = await list(henry, '?limit=2');
    expect(ids(first)).toEqual([rejected.id, second.id]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const next = await list(henry, `?limit=2&cursor=${first.nextCursor}`);
    expect(ids(next)).toEqual([bid.id]);
    expect(next.nextCursor).toBeNull();

    // Another agent never sees them: Ivy sees her own order only, Jack nothing.
    expect((await list(ivy)).orders).toMatchObject([{ id: take.id, status: 'filled', filled: '4000000', remaining: '0', cancelled: '0' }]);
    expect(ids(await list(ivy, `?market=${market.address}&status=cancelled`))).toEqual([]);
    expect(ids(await list(jack))).toEqual([]);
    for (const bad of ['?status=open', '?limit=0', '?cursor=abc', '?market=0x12', '?foo=1']) {
      const res = await server.call('GET', `${A}/orderbook/orders${bad}`, { key: henry.key });
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe('INVALID_QUERY');
    }

    // The same read is an MCP tool.
    const client = new Client({ name: 'orderbook-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${await server.runtime.listen()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${henry.key}` } } }));
    try {
      const tool = (await client.callTool({ name: 'svc_get_orderbook_orders', arguments: { status: 'cancelled' } })) as { isError?: boolean; structuredContent?: { orders: { id: string }[] } };
      expect(tool.isError).toBeFalsy();
      expect(ids(tool.structuredContent!)).toEqual([bid.id]);
    } finally {
      await client.close();
    }
  });

  it('checks ORDERBOOK terms in the create loop: binary only, no collateral, liquidity or fee; automated terms still need theirs', async () => {
    const erin = await registerWallet(server, undefined, 'erin');
    const base = { question: 'Will the terms check market resolve Yes?', category: 'TECH', closeTime: new Date(clock.now().getTime() + 30 * 86_400_000).toISOString(), resolutionSource: 'https://example.org/r' };
    const ternary = await post(erin.key, '/negotiate/propose', { ...base, pricingModel: 'ORDERBOOK', outcomes: ['A', 'B', 'C'] });
    expect(ternary.status).toBe(422);
    expect(ternary.body.code).toBe('TERMS_REJECTED');
    const stray = await post(erin.key, '/negotiate/propose', { ...base, pricingModel: 'ORDERBOOK', liquidity: '1000', collateral: 'USDC' });
    expect(stray.status).toBe(400);
    expect(stray.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.collateral', 'body.liquidity']);
    const automated = await post(erin.key, '/negotiate/propose', base);
    expect(automated.status).toBe(400);
    expect(automated.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.collateral', 'body.liquidity']);
    // LMSR names the automated lane: the same checks, and the terms say automated.
    const lmsr = await post(erin.key, '/negotiate/preflight', { ...base, pricingModel: 'LMSR' }, undefined);
    expect(lmsr.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.collateral', 'body.liquidity']);
    const proposed = await post(erin.key, '/negotiate/propose', { ...base, pricingModel: 'LMSR', collateral: 'USDC', liquidity: '100000000' });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(201);
    expect(proposed.body.negotiation.terms).toMatchObject({ pricingModel: 'automated', collateral: 'USDC' });
  });
});

describe('reservations kept per owner', () => {
  it('hold exactly what the resting orders reserve, after everything above', async () => {
    await expectReservationsAgree(server);
  });
});
