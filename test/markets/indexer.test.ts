// The indexer against a real anvil: projection of trades and positions, reorgs (anvil_reorg) that roll trades back
// and cancel markets whose creation is gone (market.cancelled, CREATION_REORGED), and the lifecycle scheduler and
// controls (open → closed, market.resolution_due, halt and unfreeze with market.controlsChanged).
import { parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { migratedPGlite } from '../support/pglite-template.ts';
import { createMarketIndexer } from '../../src/services/markets/indexer.ts';
import { createEventBus } from '../../src/services/events/bus.ts';
import { createMarket, fund, gas, post, sendApprovals, sendTx } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';

let server: TestServer;
let clock: ManualClock;
const A = '/api/agent/v1';

beforeAll(async () => {
  clock = new ManualClock(new Date());
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000' } });
});
afterAll(async () => {
  await server?.close();
});

async function funded() {
  const agent = await registerWallet(server);
  await gas(server, agent.account.address);
  await fund(server, agent.account.address);
  return agent;
}

const db = () => server.runtime.database.db;
const row = (address: string) => db().selectFrom('markets').selectAll().where('address', '=', address.toLowerCase()).executeTakeFirstOrThrow();
const events = (type: string, market: string) => db().selectFrom('events').selectAll().where('type', '=', type).where('market_address', '=', market.toLowerCase()).execute();

async function buy(agent: Awaited<ReturnType<typeof funded>>, market: string, outcome: number, shares: bigint) {
  let prepared = await post(server, agent.key, '/trade/prepare', { market, outcome, side: 'buy', shares: shares.toString() });
  if (prepared.body.code === 'APPROVAL_REQUIRED') {
    await sendApprovals(server, agent.account, prepared.body.approvals);
    prepared = await post(server, agent.key, '/trade/prepare', { market, outcome, side: 'buy', shares: shares.toString() });
  }
  expect(prepared.status).toBe(200);
  return sendTx(server, agent.account, prepared.body.transaction);
}

describe('indexer', () => {
  it('projects trades and positions, and a reorg that drops a trade rolls them back', async () => {
    const creator = await funded();
    const trader = await funded();
    const { market } = await createMarket(server, creator.key, creator.account);
    await buy(trader, market.address, 0, parseUnits('100', 6));
    await server.runtime.services.indexer.syncNow();
    const afterFirst = await row(market.address);
    expect(afterFirst.trade_count).toBe(1);

    await buy(trader, market.address, 1, parseUnits('40', 6));
    await server.runtime.services.indexer.syncNow();
    expect((await row(market.address)).trade_count).toBe(2);
    const positions = await db().selectFrom('market_positions').selectAll().where('market', '=', market.address.toLowerCase()).orderBy('outcome').execute();
    expect(positions.map((p) => [p.holder, p.outcome, p.shares])).toEqual([
      [trader.account.address.toLowerCase(), 0, parseUnits('100', 6).toString()],
      [trader.account.address.toLowerCase(), 1, parseUnits('40', 6).toString()],
    ]);

    // The block with the second trade is replaced by an empty one.
    await rpc(server.runtime.rpcUrl, 'anvil_reorg', [1, []]);
    await server.runtime.services.indexer.syncNow();
    const rolled = await row(market.address);
    expect(rolled.trade_count).toBe(1);
    expect(rolled.volume).toBe(afterFirst.volume);
    expect(rolled.prices).toEqual(afterFirst.prices);
    expect(rolled.outstanding).toEqual(afterFirst.outstanding);
    const left = await db().selectFrom('market_positions').selectAll().where('market', '=', market.address.toLowerCase()).execute();
    expect(left.map((p) => p.outcome)).toEqual([0]);
    expect(rolled.state).toBe('open');
    const projection = await server.runtime.services.indexer.projection();
    expect(projection).toMatchObject({ source: 'indexer', fresh: true, cursors: [{ chainId: 8453, lagSeconds: 0, healthy: true }] });
    expect(BigInt(projection.cursors[0]!.blockNumber!)).toBe((await server.runtime.services.chain.client.getBlock({ blockTag: 'latest' })).number);
  });

  it('a reorg that removes a confirmed creation cancels the market with CREATION_REORGED', async () => {
    const creator = await funded();
    const { market } = await createMarket(server, creator.key, creator.account);
    await server.runtime.services.indexer.syncNow();
    expect((await row(market.address)).confirmed).toBe(true);
    await rpc(server.runtime.rpcUrl, 'anvil_reorg', [1, []]);
    await server.runtime.services.indexer.syncNow();
    const cancelled = await row(market.address);
    expect(cancelled).toMatchObject({ state: 'void', cancel_reason: 'CREATION_REORGED' });
    expect((await events('market.cancelled', market.address)).map((e) => e.payload)).toEqual([{ reason: 'CREATION_REORGED', createdTx: market.creation.txHash.toLowerCase() }]);
    const detail = await server.call('GET', `${A}/discover/markets/${market.address}`, { key: creator.key });
    expect(detail.body.market).toMatchObject({ state: 'void', isTradeable: false, cancelReason: 'CREATION_REORGED' });
  });

  it('a creation at the address of a market a reorg voided registers that market afresh (the factory reuses its nonce)', async () => {
    const first = await funded();
    const { market: gone } = await createMarket(server, first.key, first.account, { question: 'Will the first creation survive the reorg?' });
    await server.runtime.services.indexer.syncNow();
    await rpc(server.runtime.rpcUrl, 'anvil_reorg', [1, []]);
    await server.runtime.services.indexer.syncNow();
    expect(await row(gone.address)).toMatchObject({ state: 'void', cancel_reason: 'CREATION_REORGED' });

    // The creator's next market takes the factory's same nonce for it: the same address, other terms.
    const { market } = await createMarket(server, first.key, first.account, { question: 'Will the second creation take the address?' });
    expect(market.address.toLowerCase()).toBe(gone.address.toLowerCase());
    await server.runtime.services.indexer.syncNow();
    expect(await row(market.address)).toMatchObject({
      state: 'open',
      cancel_reason: null,
      confirmed: true,
      question: 'Will the second creation take the address?',
    });
    expect((await events('market.created', market.address)).map((e) => (e.payload as { question: string }).question)).toEqual(['Will the first creation survive the reorg?', 'Will the second creation take the address?']);
    expect(await events('market.cancelled', market.address)).toHaveLength(1);
  });

  it('a reorged creation mined again at another address is announced: market.cancelled with relocatedTo, once', async () => {
    // Order-book markets are CREATEd at the factory's nonce (automated ones at a per-creator CREATE2 salt, which no
    // other creator can take): another creator's market takes the address while the first creation is out.
    const [first, second] = [await funded(), await funded()];
    const closes = new Date(clock.now().getTime() + 10 * 86_400_000);
    const gone = await createOrderBookMarket(server, first, 'Will the relocated creation be found again?', closes);
    const createdTx = (await row(gone.address)).created_tx.toLowerCase();
    // The creation's signed bytes, to send again once another creation has taken the factory's nonce.
    const raw = (await rpc(server.runtime.rpcUrl, 'eth_getRawTransactionByHash', [createdTx])) as string;
    await server.runtime.services.indexer.syncNow();
    await rpc(server.runtime.rpcUrl, 'anvil_reorg', [1, []]);
    await server.runtime.services.indexer.syncNow();
    expect(await row(gone.address)).toMatchObject({ state: 'void', cancel_reason: 'CREATION_REORGED' });
    // anvil puts a reorged transaction back in its pool: out of it, so that the other creation goes first.
    await rpc(server.runtime.rpcUrl, 'anvil_dropTransaction', [createdTx]);
    const taker = await createOrderBookMarket(server, second, 'Will the other creation take the address?', closes);
    expect(taker.address).toBe(gone.address);
    expect((await rpc(server.runtime.rpcUrl, 'eth_sendRawTransaction', [raw])) as string).toBe(createdTx);
    await server.runtime.services.indexer.syncNow();
    const moved = await db().selectFrom('markets').selectAll().where('created_tx', '=', createdTx).executeTakeFirstOrThrow();
    expect(moved.address).not.toBe(gone.address);
    expect(moved.state).toBe('open');
    expect((await events('market.cancelled', gone.address)).map((e) => e.payload)).toEqual([
      { reason: 'CREATION_REORGED', createdTx },
      { reason: 'CREATION_RELOCATED', relocatedTo: moved.address, createdTx, questionHash: moved.question_hash },
    ]);
    // Indexing again changes nothing: the relocation is announced once.
    await server.runtime.services.indexer.syncNow();
    expect(await events('market.cancelled', gone.address)).toHaveLength(2);
  });

  it('a creation registered by commit-deploy that the indexer never sees on chain is cancelled once it reads past it', async () => {
    const creator = await funded();
    await server.runtime.services.indexer.stop();
    try {
      const { market } = await createMarket(server, creator.key, creator.account);
      expect((await row(market.address)).confirmed).toBe(false);
      await rpc(server.runtime.rpcUrl, 'anvil_reorg', [1, []]);
      await server.runtime.services.indexer.syncNow();
      expect(await row(market.address)).toMatchObject({ state: 'void', cancel_reason: 'CREATION_REORGED' });
      expect(await events('market.cancelled', market.address)).toHaveLength(1);
    } finally {
      server.runtime.services.indexer.start();
    }
  });
});

describe('lifecycle and controls', () => {
  it('closes a market at close time and announces resolution_due 24 h before resolveBy, once', async () => {
    const creator = await funded();
    const { market } = await createMarket(server, creator.key, creator.account, { closeTime: new Date(clock.now().getTime() + 2 * 3_600_000).toISOString() });
    const lifecycle = server.runtime.services.lifecycle;
    await lifecycle.tick();
    expect((await row(market.address)).state).toBe('open');
    clock.advance(2 * 3_600_000);
    await lifecycle.tick();
    expect((await row(market.address)).state).toBe('closed');
    expect((await server.call('GET', `${A}/discover/markets/${market.address}`, { key: creator.key })).body.market.isTradeable).toBe(false);
    expect(await events('market.resolution_due', market.address)).toHaveLength(0);
    // resolveBy = close + 72 h: due from close + 48 h.
    clock.advance(48 * 3_600_000 - 1_000);
    await lifecycle.tick();
    expect(await events('market.resolution_due', market.address)).toHaveLength(0);
    clock.advance(1_000);
    await lifecycle.tick();
    await lifecycle.tick();
    const due = await events('market.resolution_due', market.address);
    expect(due).toHaveLength(1);
    expect(due[0]!.payload).toEqual({ question: market.question, resolveBy: market.resolveBy, resolveFrom: market.resolveFrom, creatorAddress: creator.account.address.toLowerCase() });
  });

  it('halt and unfreeze emit market.controlsChanged with isTradeable recomputed; a halted market refuses quotes', async () => {
    const creator = await funded();
    const { market } = await createMarket(server, creator.key, creator.account, { closeTime: new Date(clock.now().getTime() + 10 * 86_400_000).toISOString() });
    const lifecycle = server.runtime.services.lifecycle;
    expect(await lifecycle.setControl(8453, market.address, 'halt', 'OPERATOR_REVIEW')).toMatchObject({ changes: [{ axis: 'interaction', previousState: 'enabled', newState: 'halted' }], isTradeable: false });
    const quote = await post(server, creator.key, '/trade/quote', { market: market.address, outcome: 0, side: 'buy', shares: '1000000' });
    expect(quote.body.code).toBe('MARKET_NOT_TRADEABLE');
    // Halting again changes nothing and emits nothing.
    await lifecycle.setControl(8453, market.address, 'halt', 'OPERATOR_REVIEW');
    expect(await lifecycle.setControl(8453, market.address, 'unfreeze', null)).toMatchObject({ changes: [{ axis: 'interaction', previousState: 'halted', newState: 'enabled' }], isTradeable: true });
    expect((await events('market.controlsChanged', market.address)).map((e) => e.payload)).toEqual([
      { axis: 'interaction', previousState: 'enabled', newState: 'halted', reasonCode: 'OPERATOR_REVIEW', isTradeable: false },
      { axis: 'interaction', previousState: 'halted', newState: 'enabled', reasonCode: null, isTradeable: true },
    ]);
    expect((await post(server, creator.key, '/trade/quote', { market: market.address, outcome: 0, side: 'buy', shares: '1000000' })).status).toBe(200);
    await expect(lifecycle.setControl(8453, `0x${'9'.repeat(40)}`, 'halt', null)).rejects.toMatchObject({ code: 'MARKET_NOT_FOUND' });
  });
});

describe('confirmation depth', () => {
  it('indexes a block only once it is CHAIN_CONFIRMATIONS deep (its own block counting as 1)', async () => {
    // A second indexer over the same chain, three blocks deep, projecting into a database of its own.
    const own = await migratedPGlite();
    const { chain } = server.runtime.services;
    const deep = createMarketIndexer({
      db: own.db,
      client: chain.client,
      chainId: 8453,
      lane: chain.lane(),
      fromBlock: 0n,
      collateral: chain.collateral().map((c) => ({ symbol: c.symbol, token: c.token })),
      events: createEventBus({ db: own.db, log: server.runtime.log }),
      clock,
      log: server.runtime.log,
      confirmations: 3,
    });
    try {
      const creator = await funded();
      const { market } = await createMarket(server, creator.key, creator.account);
      // The signup grant's ledger batch would be mined whenever the batcher's timer fires: commit it now, so that
      // nothing but this test mines a block below.
      await server.runtime.services.ledgerBatcher.flush({ force: true });
      const created = (await chain.client.getTransactionReceipt({ hash: (await row(market.address)).created_tx as `0x${string}` })).blockNumber;
      const head = await chain.client.getBlockNumber({ cacheTime: 0 });
      const indexed = async () => {
        await deep.syncNow();
        const cursor = await own.db.selectFrom('indexer_cursors').select('block_number').executeTakeFirstOrThrow();
        const found = await own.db.selectFrom('markets').select('address').where('address', '=', market.address.toLowerCase()).execute();
        return { cursor: BigInt(cursor.block_number), found: found.length };
      };
      expect(await indexed()).toEqual({ cursor: head - 2n, found: created <= head - 2n ? 1 : 0 });
      await rpc(server.runtime.rpcUrl, 'anvil_mine', ['0x2']);
      expect(await indexed()).toEqual({ cursor: head, found: 1 });
    } finally {
      await deep.stop();
      await own.close();
    }
  });
});
