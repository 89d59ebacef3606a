// The indexer and play-money ORDERBOOK markets against a real anvil: a creation sent straight to the order-book
// factory (outside the create loop's commit-deploy) is registered from its log; a reorg that re-mines the creation
// in another block keeps the market live and confirms it again; a reorg that drops the creation voids the market
// (CREATION_REORGED), cancels its resting orders (MARKET_VOID, with order events and execution:report) and
// refuses new orders, while the fills already settled stay in the ledger.
import { createWalletClient, encodeFunctionData, http, keccak256, parseEventLogs, toHex, type Hex, type PrivateKeyAccount, type TransactionReceipt } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { chainDefinition } from '../../src/chain/clients.ts';
import { outcomeAsset } from '../../src/core/ledger/types.ts';
import { RESOLUTION_WINDOW_SECONDS } from '../../src/core/markets/fees.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { gas } from '../support/markets.ts';
import { expectReservationsAgree } from '../support/orderbook.ts';

const A = '/api/agent/v1';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    env: {
      REGISTRATION_PATHS: 'wallet',
      TRUST_PROXY: 'true',
      // The tests drive the indexer (syncNow) and keep ledger batches off the chain they reorg.
      INDEXER_POLL_MS: '60000',
      LEDGER_BATCH_MAX_OPS: '10000',
      LEDGER_BATCH_INTERVAL_MS: '3600000',
    },
  });
});
afterAll(async () => server?.close());

type Agent = Awaited<ReturnType<typeof registerWallet>>;
const db = () => server.runtime.database.db;
const chain = () => server.runtime.services.chain;
const sync = () => server.runtime.services.indexer.syncNow();
const post = (key: string, path: string, body: unknown) => server.call('POST', `${A}${path}`, { key, body, idempotencyKey: idemKey('obi') });
const marketRow = (address: string) => db().selectFrom('markets').selectAll().where('address', '=', address.toLowerCase()).executeTakeFirstOrThrow();
const eventsOf = (type: string, market: string) => db().selectFrom('events').selectAll().where('type', '=', type).where('market_address', '=', market.toLowerCase()).execute();
const head = async () => (await chain().client.getBlock({ blockTag: 'latest' })).number;

async function agent(name: string): Promise<Agent> {
  const a = await registerWallet(server, undefined, name);
  await gas(server, a.account.address);
  return a;
}

/** Signs a transaction from the account and sends it raw: the signed bytes can be mined again in a reorg. */
async function sendRaw(account: PrivateKeyAccount, tx: { to: Hex; data: Hex }): Promise<{ raw: Hex; receipt: TransactionReceipt }> {
  const wallet = createWalletClient({ account, chain: chainDefinition(server.config.chain.id, 'test', server.runtime.rpcUrl), transport: http(server.runtime.rpcUrl) });
  const raw = await wallet.signTransaction(await wallet.prepareTransactionRequest({ to: tx.to, data: tx.data }));
  const hash = (await rpc(server.runtime.rpcUrl, 'eth_sendRawTransaction', [raw])) as Hex;
  const receipt = await chain().client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe('success');
  return { raw, receipt };
}

/** propose + accept with pricingModel ORDERBOOK: the negotiation the creation's question hash names. */
async function negotiate(creator: Agent, question: string) {
  const terms = { question, category: 'TECH', pricingModel: 'ORDERBOOK', closeTime: new Date(Date.now() + 30 * 86_400_000).toISOString(), resolutionSource: 'https://example.org/resolution' };
  const proposed = await post(creator.key, '/negotiate/propose', terms);
  expect(proposed.status).toBe(201);
  const id = proposed.body.negotiation.id as string;
  expect((await post(creator.key, `/negotiate/${id}/accept`, undefined)).status).toBe(200);
  // The final terms (a counter rounds the close time to whole seconds) are what the question hash covers.
  return { id, questionHash: proposed.body.negotiation.questionHash as Hex, closeTime: proposed.body.negotiation.terms.closeTime as string };
}

/** createMarket sent from the creator's wallet straight to the factory; nothing tells svc about it. */
async function createDirectly(creator: Agent, questionHash: Hex, closeTime: string) {
  const abi = loadArtifact('OrderBookMarketFactory').abi;
  const data = encodeFunctionData({ abi, functionName: 'createMarket', args: [questionHash, BigInt(Date.parse(closeTime) / 1000), RESOLUTION_WINDOW_SECONDS] });
  const sent = await sendRaw(creator.account, { to: chain().lane().orderbookFactory, data });
  const [log] = parseEventLogs({ abi, logs: sent.receipt.logs, eventName: 'MarketCreated' }) as unknown as { args: { market: string; marketId: bigint } }[];
  return { ...sent, address: log!.args.market.toLowerCase(), marketId: log!.args.marketId };
}

/** The whole create loop (prepare-deploy, the raw transaction, commit-deploy). */
async function createThroughLoop(creator: Agent, question: string) {
  const { id } = await negotiate(creator, question);
  const prepared = await post(creator.key, `/negotiate/${id}/prepare-deploy`, undefined);
  expect(prepared.status).toBe(200);
  const sent = await sendRaw(creator.account, prepared.body.transaction);
  const committed = await post(creator.key, `/negotiate/${id}/commit-deploy`, { txHash: sent.receipt.transactionHash });
  expect(committed.status).toBe(200);
  const address = (committed.body.market.address as string).toLowerCase();
  return { ...sent, address, marketId: BigInt((await marketRow(address)).ledger_market_id!) };
}

const order = (a: Agent, market: string, body: Record<string, unknown>) => post(a.key, '/orderbook/place-order', { market, ...body });
const orderEvents = async (a: Agent) => (await post(a.key, '/orderbook/events', { after: '0', limit: 200 })).body.events as { seq: string; type: string; orderId: string; reason?: string; cancelled?: string }[];

describe('order-book markets in the indexer', () => {
  it('registers a market created directly on the factory from its log, with the negotiated text, and lists it', async () => {
    const alice = await agent('alice');
    const negotiation = await negotiate(alice, 'Will the directly created order book resolve Yes?');
    const created = await createDirectly(alice, negotiation.questionHash, negotiation.closeTime);

    await sync();
    const listed = await server.call('GET', `${A}/discover/markets?pricingModel=ORDERBOOK`, { key: alice.key });
    expect(listed.status).toBe(200);
    const record = (listed.body.markets as { address: string }[]).find((m) => m.address.toLowerCase() === created.address);
    expect(record).toMatchObject({ pricingModel: 'ORDERBOOK', question: 'Will the directly created order book resolve Yes?', category: 'TECH', state: 'open', isTradeable: true });
    expect(await marketRow(created.address)).toMatchObject({
      confirmed: true,
      ledger_market_id: created.marketId.toString(),
      negotiation_id: negotiation.id,
      created_block: created.receipt.blockNumber.toString(),
      created_tx: created.receipt.transactionHash,
    });
    expect(await eventsOf('market.live', created.address)).toHaveLength(1);
    // The negotiation is deployed by the log; a late commit-deploy of the same transaction answers the same market.
    const late = await post(alice.key, `/negotiate/${negotiation.id}/commit-deploy`, { txHash: created.receipt.transactionHash });
    expect(late.status).toBe(200);
    expect(late.body.negotiation).toMatchObject({ status: 'deployed', marketAddress: created.address });
    expect(late.body.market.address.toLowerCase()).toBe(created.address);
    await sync();
    expect(await eventsOf('market.created', created.address)).toHaveLength(1);
    // It trades: the book takes orders.
    expect((await order(alice, created.address, { outcome: 0, action: 'buy', price: '0.5', shares: '2000000' })).status).toBe(201);

    // Without any negotiation the market has no text: readable by address, never listed (as automated markets).
    const bob = await agent('bob');
    const stray = await createDirectly(bob, keccak256(toHex('no negotiation names this question')), negotiation.closeTime);
    await sync();
    const detail = await server.call('GET', `${A}/discover/markets/${stray.address}`, { key: bob.key });
    expect(detail.status).toBe(200);
    expect(detail.body.market).toMatchObject({ pricingModel: 'ORDERBOOK', question: `Unregistered market ${stray.address}`, outcomes: [{ label: 'Outcome 1' }, { label: 'Outcome 2' }] });
    expect((await marketRow(stray.address)).ledger_market_id).toBe(stray.marketId.toString());
    const again = await server.call('GET', `${A}/discover/markets?pricingModel=ORDERBOOK`, { key: bob.key });
    expect((again.body.markets as { address: string }[]).map((m) => m.address.toLowerCase())).not.toContain(stray.address);
  });

  it('keeps a market whose creation a reorg re-mines in another block: confirmed again, its orders still rest', async () => {
    const carol = await agent('carol');
    const dave = await agent('dave');
    const created = await createThroughLoop(carol, 'Will the re-mined order book stay live?');
    await sync();
    const before = await marketRow(created.address);
    expect(before).toMatchObject({ state: 'open', confirmed: true });
    const bid = await order(dave, created.address, { outcome: 0, action: 'buy', price: '0.6', shares: '10000000' });
    expect(bid.body.status).toBe('resting');

    // The creation's block and the one after it are replaced; the same signed transaction lands one block later.
    expect(await head()).toBe(created.receipt.blockNumber);
    await rpc(server.runtime.rpcUrl, 'evm_mine');
    await rpc(server.runtime.rpcUrl, 'anvil_reorg', [2, [[created.raw, 1]]]);
    const remined = await chain().client.getTransactionReceipt({ hash: created.receipt.transactionHash });
    expect(remined.blockNumber).toBe(created.receipt.blockNumber + 1n);

    await sync();
    const after = await marketRow(created.address);
    expect(after).toMatchObject({ state: 'open', cancel_reason: null, confirmed: true, created_block: remined.blockNumber.toString(), created_block_hash: remined.blockHash });
    expect(after.created_block_hash).not.toBe(before.created_block_hash);
    expect(await eventsOf('market.cancelled', created.address)).toEqual([]);
    expect(await eventsOf('market.live', created.address)).toHaveLength(1);
    expect((await db().selectFrom('orders').select(['status', 'reserved']).where('id', '=', bid.body.id).executeTakeFirstOrThrow()).status).toBe('resting');
    const take = await order(carol, created.address, { outcome: 1, action: 'buy', price: '0.4', shares: '3000000', tif: 'IOC' });
    expect(take.status).toBe(201);
    expect(take.body).toMatchObject({ status: 'filled', filled: '3000000' });
  });

  it('voids a market whose creation a reorg drops: resting orders cancelled with events, new orders refused, fills kept', async () => {
    const erin = await agent('erin');
    const gina = await agent('gina');
    const hank = await agent('hank');
    const created = await createThroughLoop(erin, 'Will the reorged order book be voided?');
    await sync();
    expect((await marketRow(created.address)).confirmed).toBe(true);

    // Gina bids 10 Yes at 60 %; Hank takes 4 of them (minted), then offers 2 of his No shares.
    const bid = await order(gina, created.address, { outcome: 0, action: 'buy', price: '0.6', shares: '10000000' });
    const take = await order(hank, created.address, { outcome: 1, action: 'buy', price: '0.4', shares: '4000000', tif: 'IOC' });
    expect(take.body).toMatchObject({ status: 'filled', filled: '4000000' });
    const ask = await order(hank, created.address, { outcome: 1, action: 'sell', price: '0.7', shares: '2000000' });
    expect(ask.body).toMatchObject({ status: 'resting', reserved: '2000000' });
    const operations = await db().selectFrom('ledger_operations').select('seq').execute();
    const hankNo = () =>
      db().selectFrom('ledger_balances').select('balance').where('account', '=', hank.account.address.toLowerCase()).where('asset_id', '=', outcomeAsset(created.marketId, 1).toString()).executeTakeFirstOrThrow();
    expect(String((await hankNo()).balance)).toBe('4');

    // Only the creation is on the chain since it was mined: the reorg drops it for good.
    expect(await head()).toBe(created.receipt.blockNumber);
    await rpc(server.runtime.rpcUrl, 'anvil_reorg', [1, []]);
    await sync();

    expect(await marketRow(created.address)).toMatchObject({ state: 'void', cancel_reason: 'CREATION_REORGED' });
    const orders = await db().selectFrom('orders').select(['id', 'status', 'reason', 'reserved', 'remaining']).where('market', '=', created.address).orderBy('seq').execute();
    expect(orders.map((o) => [o.id, o.status, o.reason, String(o.reserved), String(o.remaining)])).toEqual([
      [bid.body.id, 'cancelled', 'MARKET_VOID', '0', '0'],
      [take.body.id, 'filled', null, '0', '0'],
      [ask.body.id, 'cancelled', 'MARKET_VOID', '0', '0'],
    ]);
    // The rows keep whole shares; nothing is left of a cancelled order. Each owner's own sequence stays gap-free and ends with the cancellation; execution:report carries it.
    const ginaEvents = await orderEvents(gina);
    expect(ginaEvents.map((e) => [e.seq, e.type])).toEqual([
      ['1', 'accepted'],
      ['2', 'fill'],
      ['3', 'cancelled'],
    ]);
    expect(ginaEvents[2]).toMatchObject({ orderId: bid.body.id, reason: 'MARKET_VOID', cancelled: '6000000', remaining: '0' });
    const hankEvents = await orderEvents(hank);
    expect(hankEvents.map((e) => [e.seq, e.type])).toEqual([
      ['1', 'accepted'],
      ['2', 'fill'],
      ['3', 'accepted'],
      ['4', 'cancelled'],
    ]);
    expect(hankEvents[3]).toMatchObject({ orderId: ask.body.id, reason: 'MARKET_VOID', cancelled: '2000000', remaining: '0' });
    const reports = await db().selectFrom('events').select(['payload']).where('type', '=', 'execution:report').where('agent_id', '=', gina.agentId).orderBy('seq').execute();
    expect(reports.at(-1)!.payload).toMatchObject({ seq: '3', type: 'cancelled', orderId: bid.body.id, reason: 'MARKET_VOID', cancelled: '6000000', remaining: '0' });

    // The market takes no more orders and its book is empty; the fill stays in the ledger.
    const refused = await order(gina, created.address, { outcome: 0, action: 'buy', price: '0.5', shares: '1000000' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('MARKET_NOT_TRADEABLE');
    const depth = await server.call('GET', `${A}/discover/markets/${created.address}/depth`, { key: gina.key });
    expect(depth.body).toMatchObject({ kind: 'orderbook', tradeable: false, bids: [], asks: [] });
    expect(await db().selectFrom('ledger_operations').select('seq').execute()).toHaveLength(operations.length);
    expect(String((await hankNo()).balance)).toBe('4');
    // Cancelling an order the void already cancelled changes nothing.
    const cancel = await post(gina.key, '/orderbook/cancel-order', { orderId: bid.body.id });
    expect(cancel.body).toMatchObject({ status: 'cancelled', reason: 'MARKET_VOID', filled: '4000000', remaining: '0', cancelled: '6000000' });
    expect(await orderEvents(gina)).toHaveLength(3);
  });
});

describe('reservations kept per owner', () => {
  it('hold exactly what the resting orders reserve, after everything above', async () => {
    await expectReservationsAgree(server);
  });
});
