// Group commit on the order-book write path (docs/orderbook.md "The order loop"): placements that wait in a market's
// queue together are placed in one transaction, with exactly the fills, rows and events placing them one by one
// gives; a refused order answers its own problem while the rest of its batch is placed; a batch that fails is
// retried order by order, so only the order that fails by itself fails; a fence that refuses the batch changes
// nothing. The orders are placed in one turn through an order-book service of the test's own (the runtime's
// pieces, plus a fence that counts the transactions): with the traders and the market already looked up, they join
// the queue in the order they were placed, before its batch is taken.
import type { KyselyPlugin } from 'kysely';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { problem } from '../../src/core/error-codes.ts';
import { ProblemError } from '../../src/core/errors.ts';
import type { Account } from '../../src/core/ledger/types.ts';
import { OrderBook } from '../../src/core/orderbook/engine.ts';
import type { Outcome, RestingOrder, SubmitResult, TimeInForce } from '../../src/core/orderbook/types.ts';
import type { Principal } from '../../src/core/principal.ts';
import { createOrderBookService, ENGINE_CONFIG, type OrderBookService } from '../../src/services/orderbook/orders.ts';
import type { OrderView, PlaceOrderInput } from '../../src/services/orderbook/orders/types.ts';
import { ROUND_PHASES, SLOW_TRANSACTION_MS } from '../../src/services/orderbook/orders/round-phases.ts';
import { registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket, expectReservationsAgree } from '../support/orderbook.ts';
import { nextFullHour } from '../support/time.ts';

const GRANT = 1_000_000_000n; // 1000 play dollars
const SHARE = 1_000_000n;
const clock = new ManualClock(nextFullHour());
let server: TestServer;
let service: OrderBookService;
/** The market of every placement's transaction, in order (the fence is called first in each). */
const fenced: bigint[] = [];
/** Milliseconds the fence keeps the event loop busy (0: none). */
let fenceBusyMs = 0;
let refuseWith: ProblemError | null = null;
/** Refuses only this market's batches (with refuseWith). */
let refuseMarket: bigint | null = null;
/** The service's round trips to the database: a statement, or a pipeline of them (src/db/pipeline.ts), is one. */
let roundTrips = 0;
const countRoundTrips: KyselyPlugin = { transformQuery: (args) => args.node, transformResult: async (args) => (roundTrips++, args.result) };

interface Trader {
  agentId: string;
  owner: Account;
  principal: Principal;
}
let traders: Trader[];
let market: { address: string; marketId: bigint };

beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', LEDGER_BATCH_MAX_OPS: '10000', LEDGER_BATCH_INTERVAL_MS: '3600000', LEDGER_SIGNUP_GRANT: GRANT.toString(), FILLS_FREE_PER_MONTH: '1000' },
  });
  const { runtime } = server;
  service = createOrderBookService({
    db: runtime.database.db.withPlugin(countRoundTrips),
    clock,
    ledger: runtime.services.ledger,
    events: runtime.services.events,
    chainId: runtime.config.chain.id,
    fills: runtime.config.fills,
    fence: (_trx, marketId) => {
      fenced.push(marketId);
      // A transaction made slow on purpose: the fence is built in its first phase, so the wait lands there.
      const until = performance.now() + fenceBusyMs;
      while (performance.now() < until);
      if (refuseWith && (refuseMarket === null || refuseMarket === marketId)) throw refuseWith;
      return null;
    },
  });
  const creator = await registerWallet(server, undefined, 'gc-creator');
  await gas(server, creator.account.address);
  market = await createOrderBookMarket(server, creator, 'Will the group-commit market resolve Yes?', new Date(clock.now().getTime() + 30 * 86_400_000));
  traders = [];
  for (let i = 0; i < 6; i++) {
    const agent = await registerWallet(server, undefined, `gc-trader-${i}`);
    traders.push({ agentId: agent.agentId, owner: agent.account.address.toLowerCase() as Account, principal: await runtime.services.keys.authenticate(agent.key) });
  }
  // One at a time: every trader ends up with 20 shares of both outcomes (complete sets minted in pairs), and the
  // service knows every trader and the market (nothing is read before an order joins the queue from now on).
  for (let i = 0; i < traders.length; i += 2) {
    const [a, b] = [traders[i]!, traders[i + 1]!];
    for (const [maker, taker] of [[a, b], [b, a]] as const) {
      expect((await service.place(maker.principal, order({ outcome: 0, action: 'buy', price: '0.5', shares: 20n }))).status).toBe('resting');
      expect((await service.place(taker.principal, order({ outcome: 1, action: 'buy', price: '0.5', shares: 20n }))).status).toBe('filled');
    }
  }
});
afterAll(async () => server?.close());

const db = () => server.runtime.database.db;

function order(o: { outcome: Outcome; action: 'buy' | 'sell'; price: string; shares: bigint; tif?: TimeInForce; postOnly?: boolean }): PlaceOrderInput {
  return { market: market.address, outcome: o.outcome, action: o.action, price: o.price, shares: o.shares * SHARE, tif: o.tif ?? 'GTC', postOnly: o.postOnly ?? false };
}

/** The book the rows hold now: what the service's book must equal. */
async function bookFromRows(): Promise<OrderBook> {
  const rows = await db().selectFrom('orders').selectAll().where('market_id', '=', market.marketId.toString()).where('status', '=', 'resting').orderBy('seq').execute();
  const book = new OrderBook(ENGINE_CONFIG);
  book.restore(
    rows.map((r): RestingOrder => ({ id: r.id, owner: r.owner as Account, outcome: r.outcome as Outcome, action: r.action, priceBps: r.price_bps, shares: BigInt(r.shares), remaining: BigInt(r.remaining), tif: r.tif, postOnly: r.post_only, seq: BigInt(r.seq) })),
  );
  return book;
}

/** What the order loop writes for this market and these traders. */
const counts = async () => {
  const agents = traders.map((t) => t.agentId);
  const n = async (q: { executeTakeFirstOrThrow(): Promise<{ n: string | number | bigint }> }) => Number((await q.executeTakeFirstOrThrow()).n);
  return {
    orders: await n(db().selectFrom('orders').select((eb) => eb.fn.countAll<string>().as('n')).where('market_id', '=', market.marketId.toString())),
    fills: await n(db().selectFrom('order_fills').select((eb) => eb.fn.countAll<string>().as('n')).where('market_id', '=', market.marketId.toString())),
    orderEvents: await n(db().selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).where('agent_seq', 'is not', null).where('agent_id', 'in', agents)),
    reports: await n(db().selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).where('type', '=', 'execution:report').where('agent_id', 'in', agents)),
    ledger: await n(db().selectFrom('ledger_operations').select((eb) => eb.fn.countAll<string>().as('n'))),
  };
};

/** Places every order in one turn (so they queue together); answers each one's outcome. */
function placeTogether(orders: readonly { trader: Trader; input: PlaceOrderInput; recordEffect?: Parameters<OrderBookService['place']>[2] }[]): Promise<PromiseSettledResult<OrderView>[]> {
  return Promise.allSettled(orders.map((o) => service.place(o.trader.principal, o.input, o.recordEffect)));
}

/**
 * Checks the rows against the pure engine fed the same orders one by one, in the same order, from the book the rows
 * held before: each answer, every fill row (in id order) with its ledger match, the resting orders, and each agent's
 * order events (gap-free, in the same order as one transaction per order would have written them).
 */
async function expectOneByOne(before: { book: OrderBook; fillId: number; eventSeqs: Map<string, number> }, placed: { trader: Trader; input: PlaceOrderInput; view: OrderView }[]): Promise<void> {
  const engine = before.book;
  const agentOf = new Map(traders.map((t) => [t.owner, t.agentId]));
  const seqs = new Map((await db().selectFrom('orders').select(['id', 'seq']).where('id', 'in', placed.map((p) => p.view.id)).execute()).map((r) => [r.id, BigInt(r.seq)]));
  const expectedFills: SubmitResult['fills'] = [];
  const expectedEvents = new Map<string, { type: string; orderId: string; role?: string; shares?: string; remaining?: string }[]>();
  const event = (agentId: string, e: { type: string; orderId: string; role?: string; shares?: string; remaining?: string }) => expectedEvents.set(agentId, [...(expectedEvents.get(agentId) ?? []), e]);
  for (const { trader, input, view } of placed) {
    const priceBps = Math.round(Number(input.price) * 10_000);
    const result = engine.submit({ id: view.id, owner: trader.owner, outcome: input.outcome, action: input.action, priceBps, shares: input.shares / SHARE, tif: input.tif, postOnly: input.postOnly, seq: seqs.get(view.id)! });
    const filled = result.fills.reduce((n, f) => n + f.shares, 0n);
    expect(view, `order ${view.id}`).toMatchObject({ status: result.status, reason: result.reason, filled: (filled * SHARE).toString(), remaining: ((result.resting?.remaining ?? 0n) * SHARE).toString(), cancelled: (result.cancelled * SHARE).toString() });
    expect(view.fills.map((f) => [f.role, f.counterpartyOrderId, f.shares])).toEqual(result.fills.map((f) => ['taker', f.makerOrderId, (f.shares * SHARE).toString()]));
    event(trader.agentId, { type: 'accepted', orderId: view.id });
    for (const f of result.fills) {
      event(agentOf.get(f.maker)!, { type: 'fill', orderId: f.makerOrderId, role: 'maker', shares: (f.shares * SHARE).toString(), remaining: ((engine.get(f.makerOrderId)?.remaining ?? 0n) * SHARE).toString() });
      event(trader.agentId, { type: 'fill', orderId: view.id, role: 'taker', shares: (f.shares * SHARE).toString() });
    }
    if (result.status === 'cancelled' || result.status === 'rejected') event(trader.agentId, { type: result.status, orderId: view.id });
    expectedFills.push(...result.fills);
  }

  const fills = await db()
    .selectFrom('order_fills as f')
    .innerJoin('ledger_operations as op', 'op.seq', 'f.ledger_seq')
    .select(['f.maker_order', 'f.taker_order', 'f.maker', 'f.taker', 'f.side', 'f.kind', 'f.price_bps', 'f.shares', 'f.taker_fee', 'op.op'])
    .where('f.market_id', '=', market.marketId.toString())
    .where('f.id', '>', String(before.fillId))
    .orderBy('f.id')
    .execute();
  expect(fills.map((f) => ({ makerOrderId: f.maker_order, takerOrderId: f.taker_order, maker: f.maker, taker: f.taker, side: f.side, kind: f.kind, priceBps: f.price_bps, shares: BigInt(f.shares), takerFee: BigInt(f.taker_fee) }))).toEqual(expectedFills);
  for (const f of fills) {
    const op = (typeof f.op === 'string' ? JSON.parse(f.op) : f.op) as Record<string, unknown>;
    expect(op).toMatchObject({ maker: f.maker, taker: f.taker, side: f.side, kind: f.kind, priceBps: f.price_bps, shares: String(f.shares), fee: String(f.taker_fee) });
  }

  const resting = (await bookFromRows()).orders().map((o) => [o.id, o.remaining]);
  expect(resting).toEqual(engine.orders().map((o) => [o.id, o.remaining]));
  expect(await service.depth(market.marketId, 20)).toEqual(engine.depth(20));

  for (const t of traders) {
    const after = before.eventSeqs.get(t.agentId) ?? 0;
    // Each order event is stored once, as its execution:report, by its place in the agent's sequence (migration 0035).
    const rows = await db().selectFrom('events').select(['agent_seq', 'payload']).where('agent_id', '=', t.agentId).where('agent_seq', '>', String(after)).orderBy('agent_seq').execute();
    expect(rows.map((r) => Number(r.agent_seq))).toEqual(rows.map((_, i) => after + i + 1));
    const seen = rows.map((r) => {
      const p = (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, string>;
      expect(p.seq).toBe(String(r.agent_seq));
      return { type: p.type!, orderId: p.orderId!, ...(p.type === 'fill' ? { role: p.role, shares: p.shares, ...(p.role === 'maker' ? { remaining: p.remaining } : {}) } : {}) };
    });
    expect(seen, `events of ${t.agentId}`).toEqual(expectedEvents.get(t.agentId) ?? []);
  }
}

async function snapshot() {
  const lastFill = await db().selectFrom('order_fills').select((eb) => eb.fn.max('id').as('id')).executeTakeFirstOrThrow();
  const cursors = await db().selectFrom('order_event_cursors').select(['agent_id', 'last_seq']).execute();
  return { book: await bookFromRows(), fillId: Number(lastFill.id ?? 0), eventSeqs: new Map(cursors.map((c) => [c.agent_id, Number(c.last_seq)])) };
}

describe('group commit of placements', () => {
  it('places orders that queued together in one transaction, with the fills, rows and events of placing them one by one', async () => {
    let state = 0x6c;
    // A small seeded generator: the same orders on every run.
    const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) >>> 8;
    const orders = Array.from({ length: 24 }, (_, i) => {
      const trader = traders[i % traders.length]!;
      const outcome = (next() % 2) as Outcome;
      const tif: TimeInForce = i === 7 ? 'FOK' : next() % 5 === 0 ? 'IOC' : 'GTC';
      const input = order({ outcome, action: next() % 2 === 0 ? 'buy' : 'sell', price: (0.44 + (next() % 13) / 100).toFixed(2), shares: BigInt(1 + (next() % 3)), tif, postOnly: i === 11 });
      return { trader, input };
    });
    const before = await snapshot();
    const { transactions, transactionMs, phaseMs } = service.stats();
    fenced.length = 0;
    roundTrips = 0;

    const startedAt = performance.now();
    const outcomes = await placeTogether(orders);
    const tookMs = performance.now() - startedAt;
    // Three round trips for the whole batch (docs/orderbook.md "Round trips"): the locks and reads, then two pipelines
    // of writes, everything the second writes known from the first's answers.
    expect(roundTrips).toBe(3);

    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    const views = outcomes.map((o) => (o as PromiseFulfilledResult<OrderView>).value);
    expect(service.stats().transactions - transactions).toBe(1);
    // Its time from start to commit, within the placements' own (the bench's share of time a transaction ran).
    const spent = service.stats().transactionMs - transactionMs;
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(tookMs);
    // The same time by phase (the bench's "where a transaction's time goes"): each phase took some, and together they are
    // the transaction's from its start to its commit.
    const phases = service.stats().phaseMs;
    const byPhase = ROUND_PHASES.map((phase) => phases[phase] - phaseMs[phase]);
    for (const ms of byPhase) expect(ms).toBeGreaterThan(0);
    expect(byPhase.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(spent);
    expect(fenced).toEqual([market.marketId]);
    expect(views.filter((v) => v.fills.length > 0).length).toBeGreaterThan(3);
    await expectOneByOne(
      before,
      orders.map((o, i) => ({ ...o, view: views[i]! })),
    );
  });

  it("tallies a transaction of 50 ms or more apart, with its orders and phases (the bench's account of the tail)", async () => {
    const before = service.stats();
    fenceBusyMs = SLOW_TRANSACTION_MS + 10;
    try {
      await placeTogether([
        { trader: traders[0]!, input: order({ outcome: 0, action: 'buy', price: '0.02', shares: 1n }) },
        { trader: traders[1]!, input: order({ outcome: 1, action: 'buy', price: '0.02', shares: 1n }) },
      ]);
    } finally {
      fenceBusyMs = 0;
    }
    const after = service.stats();
    expect(after.transactions - before.transactions).toBe(1);
    expect(after.slow.transactions - before.slow.transactions).toBe(1);
    expect(after.slow.orders - before.slow.orders).toBe(2);
    const byPhase = ROUND_PHASES.map((phase) => after.slow.phaseMs[phase] - before.slow.phaseMs[phase]);
    expect(byPhase[ROUND_PHASES.indexOf('reads')]).toBeGreaterThanOrEqual(SLOW_TRANSACTION_MS + 10);
    expect(byPhase.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(after.transactionMs - before.transactionMs);
  });

  it("refuses an order its owner cannot cover after the owner's earlier order in the batch, and places the rest", async () => {
    const [rich, other] = [traders[0]!, traders[1]!];
    // Each bid reserves 603 of the 1000 play dollars (12000 shares at 0.05 plus the most fee): the second does not fit.
    const bid = order({ outcome: 0, action: 'buy', price: '0.05', shares: 12_000n });
    const recorded: string[] = [];
    const recordEffect = async (_trx: unknown, ref: string) => void recorded.push(ref);
    const placements = [
      { trader: rich, input: bid, recordEffect },
      { trader: other, input: order({ outcome: 1, action: 'buy', price: '0.3', shares: 2n }), recordEffect },
      { trader: rich, input: bid, recordEffect },
      { trader: other, input: order({ outcome: 1, action: 'buy', price: '0.31', shares: 1n }), recordEffect },
    ];
    const before = await snapshot();
    const ordersBefore = (await counts()).orders;
    const { transactions } = service.stats();

    const outcomes = await placeTogether(placements);

    expect(service.stats().transactions - transactions).toBe(1);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const refused = (outcomes[2] as PromiseRejectedResult).reason as ProblemError;
    expect(refused).toBeInstanceOf(ProblemError);
    expect({ code: refused.code, status: refused.status }).toEqual({ code: 'INSUFFICIENT_BALANCE', status: 409 });
    // What the refused order saw: the owner's balance minus its resting buys, the batch's first bid among them.
    const balance = (await server.runtime.services.ledger.balancesOf(rich.owner)).find((b) => b.assetId === 0n)!.balance;
    expect(refused.extensions).toMatchObject({ required: '603000000', available: String(balance - (await restingBuys(rich.owner))) });
    // Nothing of the refused order is written: three rows, three idempotency records.
    const views = [0, 1, 3].map((i) => (outcomes[i] as PromiseFulfilledResult<OrderView>).value);
    expect((await counts()).orders - ordersBefore).toBe(3);
    expect(recorded).toEqual(views.map((v) => v.id));
    await expectOneByOne(before, [0, 1, 3].map((i, k) => ({ ...placements[i]!, view: views[k]! })));
    for (const v of views) await service.cancel(v.id === views[0]!.id ? rich.principal : other.principal, v.id);
  });

  it('retries the orders of a failed batch one by one: only the order whose write fails fails, and the book matches the rows', async () => {
    const failing: string[] = [];
    const recorded: string[] = [];
    const recordEffect = async (_trx: unknown, ref: string) => void recorded.push(ref);
    const failOnce = async (_trx: unknown, ref: string) => {
      failing.push(ref);
      throw new Error('injected: the idempotency record of this order cannot be written');
    };
    // Crossing orders, so the failed batch had changed the book in memory before it failed.
    const placements = [
      { trader: traders[2]!, input: order({ outcome: 0, action: 'buy', price: '0.6', shares: 2n }), recordEffect },
      { trader: traders[3]!, input: order({ outcome: 1, action: 'buy', price: '0.6', shares: 1n }), recordEffect },
      { trader: traders[4]!, input: order({ outcome: 0, action: 'sell', price: '0.4', shares: 2n }), recordEffect: failOnce },
      { trader: traders[5]!, input: order({ outcome: 1, action: 'sell', price: '0.45', shares: 1n }), recordEffect },
      { trader: traders[0]!, input: order({ outcome: 0, action: 'buy', price: '0.58', shares: 1n }), recordEffect },
    ];
    const before = await snapshot();
    const { transactions } = service.stats();
    fenced.length = 0;

    const outcomes = await placeTogether(placements);

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(((outcomes[2] as PromiseRejectedResult).reason as Error).message).toMatch(/^injected/);
    // The batch, then each order alone; four of those commit.
    expect(fenced).toHaveLength(1 + placements.length);
    expect(service.stats().transactions - transactions).toBe(4);
    expect(failing).toHaveLength(2);
    expect(failing[1]).toBe(failing[0]);
    expect(await db().selectFrom('orders').select('id').where('id', 'in', failing).execute()).toEqual([]);
    const placed = [0, 1, 3, 4].map((i) => ({ ...placements[i]!, view: (outcomes[i] as PromiseFulfilledResult<OrderView>).value }));
    expect(recorded.slice(-4)).toEqual(placed.map((p) => p.view.id));
    expect(await service.depth(market.marketId, 20)).toEqual((await bookFromRows()).depth(20));
    await expectOneByOne(before, placed);
  });

  it('changes nothing when the fence refuses the batch, and answers every order of it with the refusal', async () => {
    const recorded: string[] = [];
    const recordEffect = async (_trx: unknown, ref: string) => void recorded.push(ref);
    const placements = [
      { trader: traders[1]!, input: order({ outcome: 0, action: 'buy', price: '0.6', shares: 1n }), recordEffect },
      { trader: traders[2]!, input: order({ outcome: 1, action: 'buy', price: '0.6', shares: 1n }), recordEffect },
      { trader: traders[3]!, input: order({ outcome: 0, action: 'sell', price: '0.4', shares: 1n }), recordEffect },
    ];
    const depth = await service.depth(market.marketId, 20);
    const rows = await counts();
    const { transactions } = service.stats();
    fenced.length = 0;
    refuseWith = problem('SERVICE_UNAVAILABLE', `the book of market ${market.marketId} is held by another process`);
    const resting = (await bookFromRows()).orders()[0]!;
    const owner = traders.find((t) => t.owner === resting.owner)!;
    let outcomes: PromiseSettledResult<OrderView>[];
    try {
      outcomes = await placeTogether(placements);
      // A cancel is fenced the same way.
      await expect(service.cancel(owner.principal, resting.id)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      refuseWith = null;
    }

    expect(outcomes.map((o) => (o.status === 'rejected' ? o.reason : o.value))).toEqual(placements.map(() => expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' })));
    expect(fenced).toEqual([market.marketId, market.marketId]);
    expect((await service.view(resting.id)).status).toBe('resting');
    expect(service.stats().transactions).toBe(transactions);
    expect(recorded).toEqual([]);
    expect(await counts()).toEqual(rows);
    expect(await service.depth(market.marketId, 20)).toEqual(depth);
    expect(await service.depth(market.marketId, 20)).toEqual((await bookFromRows()).depth(20));

    // Once the fence lets it through, the same orders place as usual.
    const before = await snapshot();
    fenced.length = 0;
    const again = await placeTogether(placements);
    expect(again.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(fenced).toEqual([market.marketId]);
    await expectOneByOne(before, placements.map((p, i) => ({ ...p, view: (again[i] as PromiseFulfilledResult<OrderView>).value })));
  });
});

describe('rounds: the batches of several markets in one transaction', () => {
  let second: { address: string; marketId: bigint };
  const on = (m: { address: string }, o: Parameters<typeof order>[0]): PlaceOrderInput => ({ ...order(o), market: m.address });
  const ordersOn = async (m: { marketId: bigint }) => Number((await db().selectFrom('orders').select((eb) => eb.fn.countAll<string>().as('n')).where('market_id', '=', m.marketId.toString()).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    const creator = await registerWallet(server, undefined, 'gc-creator-2');
    await gas(server, creator.account.address);
    second = await createOrderBookMarket(server, creator, 'Will the second group-commit market resolve Yes?', new Date(clock.now().getTime() + 30 * 86_400_000));
    // The service looks the market up once; from then on its orders join the queue at once, like the first market's.
    const probe = await service.place(traders[0]!.principal, on(second, { outcome: 0, action: 'buy', price: '0.05', shares: 1n }));
    await service.cancel(traders[0]!.principal, probe.id);
  });

  it('places the batches of markets that queued together in one transaction, each as its own batch would', async () => {
    const placements = [
      { trader: traders[0]!, input: on(market, { outcome: 0, action: 'buy', price: '0.6', shares: 1n }) },
      { trader: traders[1]!, input: on(second, { outcome: 0, action: 'buy', price: '0.55', shares: 2n }) },
      { trader: traders[2]!, input: on(market, { outcome: 1, action: 'buy', price: '0.4', shares: 1n }) },
      { trader: traders[3]!, input: on(second, { outcome: 1, action: 'buy', price: '0.45', shares: 2n }) },
    ];
    const [a, b] = [await ordersOn(market), await ordersOn(second)];
    const { transactions } = service.stats();
    fenced.length = 0;
    roundTrips = 0;

    const outcomes = await placeTogether(placements);

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    const views = outcomes.map((o) => (o as PromiseFulfilledResult<OrderView>).value);
    // One transaction, its three round trips, both markets fenced (in market id order).
    expect(service.stats().transactions - transactions).toBe(1);
    expect(roundTrips).toBe(3);
    expect(fenced).toEqual([market.marketId, second.marketId].sort((x, y) => (x < y ? -1 : 1)));
    // Each market's second order fills its first one (complete sets minted), on its own market.
    expect(views.map((v) => [v.market.toLowerCase(), v.status, v.fills.map((f) => f.kind)])).toEqual([
      [market.address, 'resting', []],
      [second.address, 'resting', []],
      [market.address, 'filled', ['MINT']],
      [second.address, 'filled', ['MINT']],
    ]);
    expect(views[0]!.id).not.toBe(views[1]!.id);
    expect([await ordersOn(market), await ordersOn(second)]).toEqual([a + 2, b + 2]);
    const fills = await db().selectFrom('order_fills').select(['market', 'maker_order', 'taker_order']).where('taker_order', 'in', [views[2]!.id, views[3]!.id]).orderBy('id').execute();
    expect(fills).toEqual([
      { market: market.address, maker_order: views[0]!.id, taker_order: views[2]!.id },
      { market: second.address, maker_order: views[1]!.id, taker_order: views[3]!.id },
    ]);
    // Each book in memory holds what its rows hold.
    expect(await service.depth(market.marketId, 20)).toEqual((await bookFromRows()).depth(20));
    await expectReservationsAgree(server);
  });

  it("shares an owner's collateral between the markets of a round: an order it cannot cover after its order on the other market is refused", async () => {
    const rich = traders[0]!;
    // Each bid reserves 603 of the 1000 play dollars: the second does not fit, whichever market it is on.
    const bid = (m: { address: string }) => on(m, { outcome: 0, action: 'buy', price: '0.05', shares: 12_000n });
    const { transactions } = service.stats();
    const outcomes = await placeTogether([
      { trader: rich, input: bid(market) },
      { trader: rich, input: bid(second) },
    ]);
    expect(service.stats().transactions - transactions).toBe(1);
    const placed = outcomes.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<OrderView>;
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(placed.value.status).toBe('resting');
    expect(refused.reason).toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 409 });
    await expectReservationsAgree(server);
    await service.cancel(rich.principal, placed.value.id);
  });

  it("falls back to each market's own batch when one market of the round is refused: the other's orders are placed", async () => {
    const placements = [
      { trader: traders[4]!, input: on(market, { outcome: 0, action: 'buy', price: '0.3', shares: 1n }) },
      { trader: traders[5]!, input: on(second, { outcome: 0, action: 'buy', price: '0.3', shares: 1n }) },
    ];
    const [a, b] = [await ordersOn(market), await ordersOn(second)];
    const { transactions } = service.stats();
    fenced.length = 0;
    refuseWith = problem('SERVICE_UNAVAILABLE', `the book of market ${second.marketId} is held by another process`);
    refuseMarket = second.marketId;
    let outcomes: PromiseSettledResult<OrderView>[];
    try {
      outcomes = await placeTogether(placements);
    } finally {
      refuseWith = null;
      refuseMarket = null;
    }
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { status: 'resting' } });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { code: 'SERVICE_UNAVAILABLE' } });
    // The round (refused), then each market alone: the first commits, the second is refused again.
    expect(service.stats().transactions - transactions).toBe(1);
    expect([await ordersOn(market), await ordersOn(second)]).toEqual([a + 1, b]);
    expect(fenced.filter((m) => m === market.marketId).length).toBeGreaterThanOrEqual(2);
    await expectReservationsAgree(server);
  });
});

describe('the fill allowance inside a batch', () => {
  it("counts the fills of an agent's earlier orders in the batch, as maker and as taker, before its later ones", async () => {
    const { runtime } = server;
    // Two free fills a month for everyone (no tiers), on a market of its own.
    const tight = createOrderBookService({ db: db(), clock, ledger: runtime.services.ledger, events: runtime.services.events, chainId: runtime.config.chain.id, fills: { enabled: true, freePerMonth: 2 } });
    const creator = await registerWallet(server, undefined, 'gc-tight-creator');
    await gas(server, creator.account.address);
    const own = await createOrderBookMarket(server, creator, 'Will the tight-allowance market resolve Yes?', new Date(clock.now().getTime() + 30 * 86_400_000));
    const [maker, taker] = await Promise.all(['gc-tight-maker', 'gc-tight-taker'].map(async (name) => {
      const agent = await registerWallet(server, undefined, name);
      return { agentId: agent.agentId, principal: await runtime.services.keys.authenticate(agent.key) };
    }));
    const bid = (outcome: Outcome, price: string, tif: TimeInForce = 'GTC'): PlaceOrderInput => ({ market: own.address, outcome, action: 'buy', price, shares: SHARE, tif, postOnly: false });
    for (let i = 0; i < 2; i++) expect((await tight.place(maker!.principal, bid(0, '0.5'))).status).toBe('resting');
    // The taker's first order (far from the book) makes the service know it: its next orders queue in the same turn.
    expect((await tight.place(taker!.principal, bid(1, '0.01'))).status).toBe('resting');
    const { transactions } = tight.stats();

    const outcomes = await Promise.allSettled([
      tight.place(taker!.principal, { ...bid(1, '0.5', 'IOC'), shares: 2n * SHARE }),
      tight.place(taker!.principal, bid(1, '0.4')),
      tight.place(maker!.principal, bid(0, '0.4')),
    ]);

    expect(tight.stats().transactions - transactions).toBe(1);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { status: 'filled', filled: (2n * SHARE).toString() } });
    for (const o of outcomes.slice(1)) expect(o).toMatchObject({ status: 'rejected', reason: { code: 'FILL_ALLOWANCE_EXHAUSTED', status: 402 } });
    const usage = await db().selectFrom('fill_usage').select(['agent_id', 'free_used']).where('agent_id', 'in', [maker!.agentId, taker!.agentId]).execute();
    expect(Object.fromEntries(usage.map((u) => [u.agent_id, u.free_used]))).toEqual({ [maker!.agentId]: 2, [taker!.agentId]: 2 });
  });
});

/** What the owner's resting buys reserve. */
async function restingBuys(owner: Account): Promise<bigint> {
  const row = await db().selectFrom('orders').select((eb) => eb.fn.sum<string>('reserved').as('n')).where('owner', '=', owner).where('status', '=', 'resting').where('action', '=', 'buy').executeTakeFirstOrThrow();
  return BigInt(row.n ?? 0);
}

describe('reservations kept per owner', () => {
  it('hold exactly what the resting orders reserve, after everything above', async () => {
    await expectReservationsAgree(server);
  });
});
