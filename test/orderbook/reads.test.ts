// Market reads of an ORDERBOOK market: three wallet agents trade one through a MINT, a TRANSFER and a MERGE,
// and the market record, trades, chart, holders and the 24-hour volume listing all show those fills (shares in
// collateral base units, like every market read), with fills final once their ledger batch is committed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';
import { nextFullHour } from '../support/time.ts';

const A = '/api/agent/v1';
let server: TestServer;
const clock = new ManualClock(nextFullHour());

beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', LEDGER_BATCH_MAX_OPS: '10000', LEDGER_BATCH_INTERVAL_MS: '3600000' } });
});
afterAll(async () => server?.close());

const post = (key: string, path: string, body: unknown) => server.call('POST', `${A}${path}`, { key, body, idempotencyKey: idemKey('obr') });
const get = (key: string, path: string) => server.call('GET', `${A}${path}`, { key });

describe('order-book market reads', () => {
  it('show the fills in the market record, trades, chart, holders and the 24-hour volume', async () => {
    const [alice, bob, carol] = [await registerWallet(server, undefined, 'reads-alice'), await registerWallet(server, undefined, 'reads-bob'), await registerWallet(server, undefined, 'reads-carol')];
    await gas(server, alice.account.address);
    const market = await createOrderBookMarket(server, alice, 'Will the market-reads book resolve Yes?', new Date(clock.now().getTime() + 30 * 86_400_000));
    // A market is created at its block's time; the service's clock continues from there.
    const createdAt = (await get(bob.key, `/discover/markets/${market.address}`)).body.market.createdAt as string;
    clock.set(new Date(createdAt));
    const order = async (agent: typeof alice, body: Record<string, unknown>) => {
      const res = await post(agent.key, '/orderbook/place-order', { market: market.address, ...body });
      expect(res.status).toBe(201);
      return res.body;
    };

    // Before any fill: the record's reference prices, no trades, no holders, one chart point.
    expect((await get(bob.key, `/discover/markets/${market.address}/trades`)).body).toEqual({ trades: [] });
    expect((await get(bob.key, `/discover/markets/${market.address}/holders`)).body).toMatchObject({ holderCount: 0, openInterest: '0' });

    // 1. MINT: Alice bids 10 Yes at 60 %; Bob buys 6 No at 40 %.
    clock.advance(60_000);
    await order(alice, { outcome: 0, action: 'buy', price: '0.6', shares: '10000000' });
    expect((await order(bob, { outcome: 1, action: 'buy', price: '0.4', shares: '6000000', tif: 'IOC' })).fills).toMatchObject([{ kind: 'MINT' }]);
    // 2. TRANSFER: Bob offers 2 No at 30 %; Carol buys them.
    clock.advance(60_000);
    await order(bob, { outcome: 1, action: 'sell', price: '0.3', shares: '2000000' });
    expect((await order(carol, { outcome: 1, action: 'buy', price: '0.3', shares: '2000000' })).fills).toMatchObject([{ kind: 'TRANSFER' }]);
    // 3. MERGE: Alice offers 3 Yes at 65 %; Carol sells 1 No at 35 % into it.
    clock.advance(60_000);
    await order(alice, { outcome: 0, action: 'sell', price: '0.65', shares: '3000000' });
    expect((await order(carol, { outcome: 1, action: 'sell', price: '0.35', shares: '1000000' })).fills).toMatchObject([{ kind: 'MERGE' }]);
    const lastFillAt = clock.now().toISOString();

    // The market record: last fill's prices, 5 complete sets outstanding, volume = Σ taker cost.
    const record = (await get(bob.key, `/discover/markets/${market.address}`)).body.market;
    expect(record).toMatchObject({
      pricingModel: 'ORDERBOOK',
      collateral: { symbol: 'PLAY', decimals: 6 },
      outcomes: [
        { index: 0, price: '0.65', outstandingShares: '5000000' },
        { index: 1, price: '0.35', outstandingShares: '5000000' },
      ],
      volume: '3350000',
      tradeCount: 3,
      openInterest: '5000000',
      lastTradeAt: lastFillAt,
    });

    // Trades: the fills, newest first, from the taker's side.
    const trades = (await get(bob.key, `/discover/markets/${market.address}/trades?limit=10`)).body.trades;
    const addr = (a: typeof alice) => a.account.address;
    expect(trades).toMatchObject([
      { kind: 'orderbook', match: 'MERGE', taker: addr(carol), maker: addr(alice), outcome: 1, side: 'sell', price: '0.35', shares: '1000000', cost: '350000', takerFee: '1750', pricesAfter: ['0.65', '0.35'], final: false, batchNonce: null },
      { kind: 'orderbook', match: 'TRANSFER', taker: addr(carol), maker: addr(bob), outcome: 1, side: 'buy', price: '0.3', shares: '2000000', cost: '600000', takerFee: '3000', pricesAfter: ['0.7', '0.3'] },
      { kind: 'orderbook', match: 'MINT', taker: addr(bob), maker: addr(alice), outcome: 1, side: 'buy', price: '0.4', shares: '6000000', cost: '2400000', takerFee: '12000', pricesAfter: ['0.6', '0.4'] },
    ]);
    expect((await get(bob.key, `/discover/markets/${market.address}/trades?limit=1`)).body.trades).toHaveLength(1);

    // Chart: the reference prices at creation, then the prices after each fill; latest = the record's.
    const chart = (await get(bob.key, `/discover/markets/${market.address}/chart`)).body;
    expect(chart.points.map((p: { prices: string[] }) => p.prices)).toEqual([
      ['0.5', '0.5'],
      ['0.6', '0.4'],
      ['0.7', '0.3'],
      ['0.65', '0.35'],
    ]);
    expect(chart.latest).toEqual({ t: lastFillAt, prices: ['0.65', '0.35'] });
    const consumerChart = await server.call('GET', `/api/v1/markets/${market.address}/chart?chainId=${server.config.chain.id}`, { key: bob.key });
    expect(consumerChart.body.points).toEqual(chart.points);

    // Holders: the ledger's live balances of both outcome assets.
    const holders = (await get(bob.key, `/discover/markets/${market.address}/holders`)).body;
    expect(holders).toMatchObject({
      holderCount: 3,
      openInterest: '5000000',
      holders: [
        { index: 0, label: 'Yes', outstandingShares: '5000000', holderCount: 1, top: [{ address: addr(alice), shares: '5000000' }] },
        {
          index: 1,
          label: 'No',
          outstandingShares: '5000000',
          holderCount: 2,
          top: [
            { address: addr(bob), shares: '4000000' },
            { address: addr(carol), shares: '1000000' },
          ],
        },
      ],
    });

    // The 24-hour volume counts fills, and sorts the listing.
    const listing = (await get(bob.key, `/discover/markets?sort=volume_24h&pageSize=5`)).body;
    const listed = listing.markets.find((m: { address: string }) => m.address.toLowerCase() === market.address);
    expect(listed).toMatchObject({ volume24h: '3350000' });
    expect(listing.markets[0].address.toLowerCase()).toBe(market.address);

    // Committed on chain: every fill is final. A day later the chart's 1D window opens at the last price.
    await server.runtime.services.ledgerBatcher.flush({ force: true });
    const finalTrades = (await get(bob.key, `/discover/markets/${market.address}/trades`)).body.trades;
    expect(finalTrades.every((t: { final: boolean; batchNonce: string | null }) => t.final && t.batchNonce !== null)).toBe(true);
    clock.advance(2 * 86_400_000);
    const later = (await get(bob.key, `/discover/markets/${market.address}/chart?window=1D`)).body;
    expect(later.points).toEqual([{ t: new Date(clock.now().getTime() - 86_400_000).toISOString(), prices: ['0.65', '0.35'] }]);
    expect((await get(bob.key, `/discover/markets?sort=volume_24h&pageSize=100`)).body.markets.find((m: { address: string }) => m.address.toLowerCase() === market.address)).toMatchObject({ volume24h: '0' });
  });
});
