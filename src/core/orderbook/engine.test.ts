import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LedgerBalances, movementsOf, type Movement } from '../ledger/engine.ts';
import { COLLATERAL_ASSET, CREDIT_REASONS, MATCH_KINDS, outcomeAsset, SUPPLY_ACCOUNT, type Account } from '../ledger/types.ts';
import { ORDERBOOK_FEES } from '../markets/fees.ts';
import { axisOf, OrderBook, takerFeeOf } from './engine.ts';
import { NaiveOrderBook } from './naive.ts';
import type { EngineConfig, Fill, OrderInput, Outcome, RestingOrder, SubmitResult, TimeInForce } from './types.ts';
import { replayable } from '../../../test/support/property.ts';

const CONFIG: EngineConfig = { tickBps: ORDERBOOK_FEES.tickBps, minShares: BigInt(ORDERBOOK_FEES.minShares), takerFeeBps: ORDERBOOK_FEES.takerFeeBps };
const OWNERS: Account[] = [
  '0x00000000000000000000000000000000000000a1',
  '0x00000000000000000000000000000000000000b2',
  '0x00000000000000000000000000000000000000c3',
  '0x00000000000000000000000000000000000000d4',
];
const [ALICE, BOB, CAROL] = OWNERS as [Account, Account, Account, Account];
const FEE_ACCOUNT: Account = '0x00000000000000000000000000000000000000fe';
const MARKET = 1n;

/** Builds orders with increasing seqs and ids o1, o2, … */
function orders() {
  let seq = 0n;
  return (owner: Account, outcome: Outcome, action: 'buy' | 'sell', priceBps: number, shares: bigint, more: Partial<OrderInput> = {}): OrderInput => {
    seq += 1n;
    return { id: `o${seq}`, owner, outcome, action, priceBps, shares, tif: 'GTC', postOnly: false, seq, ...more };
  };
}

const fillOf = (f: Partial<Fill>): Fill => expect.objectContaining(f) as Fill;

describe('order book matching', () => {
  it('settles buy 0 against a resting sell 0 as a TRANSFER of outcome 0 at the maker price', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    expect(book.submit(o(ALICE, 0, 'sell', 6000, 10n)).status).toBe('resting');
    const r = book.submit(o(BOB, 0, 'buy', 6500, 10n));
    expect(r).toEqual({
      status: 'filled',
      resting: null,
      cancelled: 0n,
      reason: null,
      // 10 shares × 6000 bps × 100 = 6_000_000 base units; 50 bps of it = 30_000.
      fills: [{ makerOrderId: 'o1', takerOrderId: 'o2', maker: ALICE, taker: BOB, side: 0, kind: MATCH_KINDS.TRANSFER, priceBps: 6000, shares: 10n, takerFee: 30_000n }],
    });
    expect(book.depth(5)).toEqual({ bids: [], asks: [] });
  });

  it('settles outcome-1 trades as a TRANSFER (taker buys) or TAKER_SELLS (taker sells into a resting buy)', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 1, 'sell', 3000, 5n)); // a bid at 7000 on the outcome-0 axis
    expect(book.depth(1).bids).toEqual([{ priceBps: 7000, shares: 5n, orders: 1 }]);
    const r = book.submit(o(BOB, 1, 'buy', 3500, 5n)); // an ask at 6500: crosses
    expect(r.fills).toEqual([fillOf({ maker: ALICE, taker: BOB, side: 1, kind: MATCH_KINDS.TRANSFER, priceBps: 3000, shares: 5n, takerFee: 7_500n })]);

    book.submit(o(ALICE, 1, 'buy', 4000, 2n)); // ask at 6000
    const s = book.submit(o(CAROL, 1, 'sell', 3800, 2n)); // bid at 6200: sells at the maker's 4000
    expect(s.fills).toEqual([fillOf({ maker: ALICE, taker: CAROL, side: 1, kind: MATCH_KINDS.TAKER_SELLS, priceBps: 4000, shares: 2n, takerFee: 4_000n })]);
  });

  it('mints a complete set when buys of both outcomes cross; the taker pays 10000 − the maker price', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'buy', 6000, 4n));
    const r = book.submit(o(BOB, 1, 'buy', 4500, 4n)); // ask at 5500 ≤ 6000; pays 4000 ≤ its 4500
    // fee on 4 × 4000 × 100 = 1_600_000 → 8_000.
    expect(r.fills).toEqual([fillOf({ maker: ALICE, taker: BOB, side: 0, kind: MATCH_KINDS.MINT, priceBps: 6000, shares: 4n, takerFee: 8_000n })]);

    book.submit(o(ALICE, 1, 'buy', 4000, 1n)); // ask at 6000
    const s = book.submit(o(CAROL, 0, 'buy', 6500, 1n)); // pays 6000 ≤ 6500
    expect(s.fills).toEqual([fillOf({ side: 1, kind: MATCH_KINDS.MINT, priceBps: 4000, takerFee: 3_000n })]);
  });

  it('merges a complete set when sells of both outcomes cross; the taker receives 10000 − the maker price', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'sell', 4000, 3n)); // ask at 4000
    const r = book.submit(o(BOB, 1, 'sell', 5500, 3n)); // bid at 4500: receives 6000 ≥ 5500
    expect(r.fills).toEqual([fillOf({ maker: ALICE, taker: BOB, side: 0, kind: MATCH_KINDS.MERGE, priceBps: 4000, shares: 3n, takerFee: 9_000n })]);
  });

  it('leaves a partly filled maker at its place in the queue and rests the taker remainder', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'sell', 6000, 10n));
    book.submit(o(CAROL, 0, 'sell', 6000, 10n));
    expect(book.submit(o(BOB, 0, 'buy', 6000, 4n)).fills.map((f) => [f.makerOrderId, f.shares])).toEqual([['o1', 4n]]);
    expect(book.get('o1')?.remaining).toBe(6n);
    const r = book.submit(o(BOB, 0, 'buy', 6000, 20n));
    expect(r.fills.map((f) => [f.makerOrderId, f.shares])).toEqual([
      ['o1', 6n],
      ['o2', 10n],
    ]);
    expect(r.status).toBe('resting');
    expect(r.resting).toMatchObject({ id: 'o4', shares: 20n, remaining: 4n });
    expect(book.depth(5)).toEqual({ bids: [{ priceBps: 6000, shares: 4n, orders: 1 }], asks: [] });
  });

  it('takes the best price first, then the earliest seq, across both outcomes on one level', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'sell', 6100, 1n)); // o1 ask 6100
    book.submit(o(BOB, 1, 'buy', 4000, 1n)); // o2 ask 6000
    book.submit(o(CAROL, 0, 'sell', 6000, 1n)); // o3 ask 6000, later
    book.submit(o(ALICE, 0, 'sell', 5900, 1n)); // o4 ask 5900
    const r = book.submit(o(OWNERS[3]!, 0, 'buy', 6100, 4n));
    expect(r.fills.map((f) => [f.makerOrderId, f.kind])).toEqual([
      ['o4', MATCH_KINDS.TRANSFER],
      ['o2', MATCH_KINDS.MINT],
      ['o3', MATCH_KINDS.TRANSFER],
      ['o1', MATCH_KINDS.TRANSFER],
    ]);
  });

  it('cancels an IOC remainder, and all of an IOC that crosses nothing', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'sell', 6000, 3n));
    const r = book.submit(o(BOB, 0, 'buy', 6000, 5n, { tif: 'IOC' }));
    expect(r).toMatchObject({ status: 'cancelled', cancelled: 2n, reason: 'IOC_REMAINDER', resting: null });
    expect(r.fills).toHaveLength(1);
    expect(book.submit(o(BOB, 0, 'buy', 5000, 5n, { tif: 'IOC' }))).toEqual({ status: 'cancelled', fills: [], resting: null, cancelled: 5n, reason: 'IOC_REMAINDER' });
    expect(book.orders()).toEqual([]);
    expect(book.submit(o(BOB, 0, 'buy', 6000, 1n, { tif: 'IOC' })).reason).toBe('IOC_REMAINDER');
  });

  it('fills a FOK completely across levels or rejects it and leaves the book as it was', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'sell', 6000, 3n));
    book.submit(o(CAROL, 1, 'buy', 3900, 3n)); // ask 6100
    const before = book.orders();
    expect(book.submit(o(BOB, 0, 'buy', 6100, 7n, { tif: 'FOK' }))).toEqual({ status: 'rejected', fills: [], resting: null, cancelled: 7n, reason: 'FOK_NOT_FILLABLE' });
    expect(book.submit(o(BOB, 0, 'buy', 6000, 4n, { tif: 'FOK' })).reason).toBe('FOK_NOT_FILLABLE');
    expect(book.submit(o(BOB, 0, 'buy', 5000, 1n, { tif: 'FOK' })).reason).toBe('FOK_NOT_FILLABLE');
    expect(book.orders()).toEqual(before);
    const r = book.submit(o(BOB, 0, 'buy', 6100, 6n, { tif: 'FOK' }));
    expect(r.status).toBe('filled');
    expect(r.fills.map((f) => f.shares)).toEqual([3n, 3n]);
  });

  it('rejects a post-only order that would take liquidity and rests one that would not', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'sell', 6000, 3n));
    expect(book.submit(o(BOB, 1, 'sell', 4000, 1n, { postOnly: true }))).toEqual({ // a bid at 6000
      status: 'rejected',
      fills: [],
      resting: null,
      cancelled: 1n,
      reason: 'POST_ONLY_WOULD_MATCH',
    });
    expect(book.get('o1')?.remaining).toBe(3n);
    expect(book.submit(o(BOB, 1, 'sell', 4100, 1n, { postOnly: true })).status).toBe('resting'); // a bid at 5900
    // Crossing its owner's own order is refused as post-only too: it could not rest without crossing.
    expect(book.submit(o(ALICE, 0, 'buy', 6000, 1n, { postOnly: true })).reason).toBe('POST_ONLY_WOULD_MATCH');
  });

  it('prevents self-trades by cancelling the arriving remainder and never touches the resting order', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(CAROL, 0, 'sell', 5900, 2n)); // o1
    book.submit(o(ALICE, 0, 'sell', 6000, 5n)); // o2: Alice's own
    book.submit(o(CAROL, 0, 'sell', 6000, 5n)); // o3: behind Alice's on the same level
    const s = book.submit(o(ALICE, 0, 'buy', 6000, 10n));
    expect(s).toEqual({
      status: 'cancelled',
      fills: [fillOf({ makerOrderId: 'o1', shares: 2n })],
      resting: null,
      cancelled: 8n,
      reason: 'SELF_TRADE_PREVENTED',
    });
    expect(book.get('o2')?.remaining).toBe(5n);
    expect(book.get('o3')?.remaining).toBe(5n);
    // A FOK counts only what lies ahead of its owner's first order: 5 shares of Carol behind Alice's do not count.
    book.submit(o(CAROL, 0, 'sell', 5900, 2n));
    expect(book.submit(o(ALICE, 0, 'buy', 6000, 3n, { tif: 'FOK' })).reason).toBe('FOK_NOT_FILLABLE');
    expect(book.submit(o(ALICE, 0, 'buy', 6000, 2n, { tif: 'FOK' })).status).toBe('filled');
    // Nothing fills when the best order is the owner's: a GTC does not rest either.
    expect(book.submit(o(ALICE, 0, 'buy', 6000, 1n))).toEqual({ status: 'cancelled', fills: [], resting: null, cancelled: 1n, reason: 'SELF_TRADE_PREVENTED' });
    expect(book.depth(5).bids).toEqual([]);
  });

  it('cancels a resting order once, returning what remained, and moves the best price', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'buy', 5000, 5n));
    book.submit(o(ALICE, 0, 'buy', 5200, 5n));
    book.submit(o(BOB, 0, 'sell', 5200, 2n));
    expect(book.depth(1).bids).toEqual([{ priceBps: 5200, shares: 3n, orders: 1 }]);
    expect(book.cancel('o2')).toMatchObject({ id: 'o2', shares: 5n, remaining: 3n });
    expect(book.cancel('o2')).toBeNull();
    expect(book.cancel('o3')).toBeNull(); // filled, not resting
    expect(book.cancel('nope')).toBeNull();
    expect(book.depth(1).bids).toEqual([{ priceBps: 5000, shares: 5n, orders: 1 }]);
    expect(book.submit(o(BOB, 0, 'sell', 5100, 1n)).status).toBe('resting');
  });

  it('aggregates depth per level: bids descending, asks ascending, at most `levels` each', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'buy', 4000, 1n));
    book.submit(o(BOB, 1, 'sell', 6000, 2n)); // bid 4000
    book.submit(o(BOB, 0, 'buy', 4500, 3n));
    book.submit(o(CAROL, 0, 'sell', 5500, 4n));
    book.submit(o(CAROL, 1, 'buy', 4000, 5n)); // ask 6000
    book.submit(o(CAROL, 0, 'sell', 9900, 6n));
    expect(book.depth(2)).toEqual({
      bids: [
        { priceBps: 4500, shares: 3n, orders: 1 },
        { priceBps: 4000, shares: 3n, orders: 2 },
      ],
      asks: [
        { priceBps: 5500, shares: 4n, orders: 1 },
        { priceBps: 6000, shares: 5n, orders: 1 },
      ],
    });
    expect(book.depth(0)).toEqual({ bids: [], asks: [] });
    expect(book.depth(10).asks.map((l) => l.priceBps)).toEqual([5500, 6000, 9900]);
    expect(() => book.depth(-1)).toThrow(RangeError);
  });

  it('rounds the taker fee up to the next base unit, on the taker’s own price', () => {
    // Notional is shares × price × 100; 50 bps of it is a whole unit at a 100-bps tick, so use a 1-bps tick.
    const book = new OrderBook({ tickBps: 1, minShares: 1n, takerFeeBps: 50 });
    const o = orders();
    book.submit(o(ALICE, 0, 'sell', 4999, 3n));
    // 3 × 4999 × 100 × 50 / 10000 = 7498.5 → 7499
    expect(book.submit(o(BOB, 0, 'buy', 4999, 3n)).fills[0]!.takerFee).toBe(7_499n);
    book.submit(o(ALICE, 0, 'buy', 4999, 3n));
    // MINT: the taker buys outcome 1 at 10000 − 4999 = 5001: 7501.5 → 7502
    expect(book.submit(o(BOB, 1, 'buy', 5001, 3n)).fills[0]!.takerFee).toBe(7_502n);
    book.submit(o(ALICE, 0, 'sell', 1, 1n));
    // 1 × 1 × 100 × 50 / 10000 = 0.5 → 1
    expect(book.submit(o(BOB, 0, 'buy', 1, 1n)).fills[0]!.takerFee).toBe(1n);
    expect(takerFeeOf(1n, 1, 0)).toBe(0n);
    expect(takerFeeOf(2n, 1, 50)).toBe(1n);
  });

  it('refuses invalid orders with a RangeError and changes nothing', () => {
    const book = new OrderBook(CONFIG);
    const base: OrderInput = { id: 'a', owner: ALICE, outcome: 0, action: 'buy', priceBps: 5000, shares: 1n, tif: 'GTC', postOnly: false, seq: 10n };
    const bad: [Partial<OrderInput>, RegExp][] = [
      [{ priceBps: 5050 }, /multiple of the 100-bps tick/],
      [{ priceBps: 0 }, /priceBps 0/],
      [{ priceBps: 10_000 }, /priceBps 10000/],
      [{ priceBps: 50.5 }, /priceBps/],
      [{ shares: 0n }, /shares 0 must be/],
      [{ outcome: 2 as Outcome }, /outcome 2/],
      [{ action: 'hold' as 'buy' }, /action/],
      [{ tif: 'DAY' as TimeInForce }, /tif/],
      [{ id: '' }, /id/],
    ];
    for (const [patch, message] of bad) expect(() => book.submit({ ...base, ...patch })).toThrow(message);
    expect(book.submit(base).status).toBe('resting'); // seq 10 was not consumed by the refusals
    expect(() => book.submit({ ...base, seq: 11n })).toThrow(/already resting/);
    expect(() => book.submit({ ...base, id: 'b', seq: 10n })).toThrow(/not greater/);
    expect(() => book.submit({ ...base, id: 'b', seq: 9n })).toThrow(/not greater/);
    expect(new OrderBook({ ...CONFIG, minShares: 5n }).submit({ ...base, shares: 5n }).status).toBe('resting');
    expect(() => new OrderBook({ ...CONFIG, minShares: 5n }).submit({ ...base, shares: 4n })).toThrow(/minimum of 5/);
    expect(book.orders()).toHaveLength(1);
    expect(() => new OrderBook({ ...CONFIG, tickBps: 300 })).toThrow(/divides 10000/);
    expect(() => new OrderBook({ ...CONFIG, minShares: 0n })).toThrow(/minShares/);
    expect(() => new OrderBook({ ...CONFIG, takerFeeBps: -1 })).toThrow(/takerFeeBps/);
  });

  it('restores a book without matching, in seq order, and refuses a crossed or malformed one', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'buy', 4000, 5n));
    book.submit(o(BOB, 1, 'buy', 5000, 5n)); // ask 5000
    book.submit(o(CAROL, 1, 'sell', 6000, 2n)); // bid 4000, after Alice's
    book.submit(o(CAROL, 0, 'sell', 4000, 3n)); // fills Alice's partly
    const saved = book.orders();
    const copy = new OrderBook(CONFIG);
    copy.restore([...saved].reverse());
    expect(copy.orders()).toEqual(saved);
    expect(copy.depth(10)).toEqual(book.depth(10));
    expect(() => copy.submit(o(BOB, 0, 'sell', 3000, 1n, { seq: 2n }))).toThrow(/not greater/);
    expect(copy.submit(o(BOB, 0, 'sell', 3000, 10n)).fills.map((f) => [f.makerOrderId, f.shares])).toEqual([
      ['o1', 2n],
      ['o3', 2n],
    ]);
    expect(() => copy.restore([])).toThrow(/fresh/);

    const resting = (patch: Partial<RestingOrder>): RestingOrder => ({ ...saved[0]!, ...patch });
    const refusals: RestingOrder[][] = [
      [resting({}), resting({ id: 'x', seq: 99n, outcome: 0, action: 'sell', priceBps: 4000 })], // crossed
      [resting({}), resting({ seq: 99n })], // id twice
      [resting({}), resting({ id: 'x' })], // seq twice
      [resting({ tif: 'IOC' })],
      [resting({ remaining: 0n })],
      [resting({ remaining: 6n })],
      [resting({ priceBps: 4050 })],
    ];
    for (const list of refusals) {
      const fresh = new OrderBook(CONFIG);
      expect(() => fresh.restore(list)).toThrow(RangeError);
      expect(fresh.orders()).toEqual([]);
    }
  });

  it('compacts a level whose queue fills with cancelled orders behind a live one', () => {
    const book = new OrderBook(CONFIG);
    const o = orders();
    book.submit(o(ALICE, 0, 'sell', 6000, 1n));
    for (let i = 0; i < 5_000; i++) book.cancel(book.submit(o(BOB, 0, 'sell', 6000, 1n)).resting!.id);
    const level = (book as unknown as { askLevels: { queue: unknown[] }[] }).askLevels[60]!;
    expect(level.queue.length).toBeLessThan(100);
    expect(book.depth(1).asks).toEqual([{ priceBps: 6000, shares: 1n, orders: 1 }]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Random order streams: engine vs naive reference, and invariants after every step.

type Step =
  | { type: 'submit'; owner: number; outcome: Outcome; action: 'buy' | 'sell'; offset: number; extra: number; tif: TimeInForce; postOnly: boolean }
  | { type: 'cancel'; pick: number }
  | { type: 'invalid'; variant: 'dupId' | 'oldSeq' | 'offTick' | 'tooSmall'; pick: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      type: fc.constant('submit' as const),
      owner: fc.integer({ min: 0, max: 3 }),
      outcome: fc.constantFrom(0 as const, 1 as const),
      action: fc.constantFrom('buy' as const, 'sell' as const),
      offset: fc.integer({ min: -3, max: 3 }),
      extra: fc.integer({ min: 0, max: 12 }),
      tif: fc.constantFrom<TimeInForce>('GTC', 'GTC', 'GTC', 'IOC', 'FOK'),
      postOnly: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
    }),
  },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('invalid' as const), variant: fc.constantFrom('dupId' as const, 'oldSeq' as const, 'offTick' as const, 'tooSmall' as const), pick: fc.nat() }) },
);

const configArb: fc.Arbitrary<EngineConfig> = fc.record({
  tickBps: fc.constantFrom(10, 100, 500, 2500),
  minShares: fc.constantFrom(1n, 2n),
  takerFeeBps: fc.constantFrom(0, 37, 50),
});

type Outcome_<T> = { ok: T } | { error: string };
function attempt<T>(f: () => T): Outcome_<T> {
  try {
    return { ok: f() };
  } catch (err) {
    return { error: err instanceof RangeError ? 'RangeError' : String(err) };
  }
}

/** Turns steps into concrete orders and cancels for one config (ids and seqs increase with the step). */
function materialise(config: EngineConfig, steps: readonly Step[], start = 0, known: readonly string[] = []) {
  const ids: string[] = [...known];
  let seq = BigInt(start * 10);
  return steps.map((s, i): { cancel: string } | { order: OrderInput } => {
    if (s.type === 'cancel') return { cancel: ids.length === 0 || s.pick % 7 === 0 ? 'unknown' : ids[s.pick % ids.length]! };
    seq += 1n;
    const n = start + i;
    if (s.type === 'invalid') {
      const base: OrderInput = { id: `o${n}`, owner: OWNERS[0]!, outcome: 0, action: 'buy', priceBps: 5000, shares: config.minShares, tif: 'GTC', postOnly: false, seq };
      if (s.variant === 'dupId') return { order: { ...base, id: ids.length === 0 ? 'o-none' : ids[s.pick % ids.length]! } };
      if (s.variant === 'oldSeq') return { order: { ...base, seq: seq - 1n - BigInt(s.pick % 3) } };
      if (s.variant === 'offTick') return { order: { ...base, priceBps: 5000 + 50 } };
      return { order: { ...base, shares: config.minShares - 1n } };
    }
    const t = config.tickBps;
    const priceBps = Math.min(10_000 - t, Math.max(t, 5000 + s.offset * t));
    const order: OrderInput = {
      id: `o${n}`,
      owner: OWNERS[s.owner]!,
      outcome: s.outcome,
      action: s.action,
      priceBps,
      shares: config.minShares + BigInt(s.extra),
      tif: s.tif,
      postOnly: s.postOnly,
      seq,
    };
    ids.push(order.id);
    return { order };
  });
}

const bidOf = (o: OrderInput): boolean => axisOf(o.outcome, o.action, o.priceBps).bid;
const axisBpsOf = (o: OrderInput): number => axisOf(o.outcome, o.action, o.priceBps).axisBps;

/** The ledger movements of one fill: it is one ledger match as it stands (TAKER_SELLS covers a sell into a resting buy). */
function settle(fill: Fill): Movement[] {
  return movementsOf(
    { type: 'match', match: { marketId: MARKET, side: fill.side, kind: fill.kind, shares: fill.shares, priceBps: fill.priceBps, maker: fill.maker, taker: fill.taker, fee: fill.takerFee } },
    FEE_ACCOUNT,
  );
}

function netOf(movements: readonly Movement[], account: Account, asset: bigint): bigint {
  let sum = 0n;
  for (const m of movements) {
    if (m.id !== asset) continue;
    if (m.to === account) sum += m.value;
    if (m.from === account) sum -= m.value;
  }
  return sum;
}

/** The priority of the resting orders an arriving order may trade with, from a snapshot (best first). */
function crossingInPriority(book: readonly RestingOrder[], taker: OrderInput): RestingOrder[] {
  const bid = bidOf(taker);
  const p = axisBpsOf(taker);
  return book
    .filter((r) => r.remaining > 0n && bidOf(r) !== bid && (bid ? axisBpsOf(r) <= p : axisBpsOf(r) >= p))
    .sort((a, b) => (axisBpsOf(a) !== axisBpsOf(b) ? (bid ? axisBpsOf(a) - axisBpsOf(b) : axisBpsOf(b) - axisBpsOf(a)) : a.seq < b.seq ? -1 : 1));
}

describe('order book properties on random streams', () => {
  it('matches the naive reference after every step: same results, same books, never crossed', () => {
    fc.assert(
      fc.property(configArb, fc.array(stepArb, { maxLength: 60, size: 'max' }), (config, steps) => {
        const fast = new OrderBook(config);
        const naive = new NaiveOrderBook(config);
        for (const step of materialise(config, steps)) {
          if ('cancel' in step) expect(fast.cancel(step.cancel)).toEqual(naive.cancel(step.cancel));
          else expect(attempt(() => fast.submit(step.order))).toEqual(attempt(() => naive.submit(step.order)));
          expect(fast.orders()).toEqual(naive.orders());
          const depth = fast.depth(100);
          expect(depth).toEqual(naive.depth(100));
          const [bestBid, bestAsk] = [depth.bids[0], depth.asks[0]];
          if (bestBid !== undefined && bestAsk !== undefined) expect(bestBid.priceBps).toBeLessThan(bestAsk.priceBps);
        }
      }),
      replayable({ numRuns: 200 }),
    );
  });

  it('conserves shares per order and collateral per fill, and no party trades beyond its limit', () => {
    fc.assert(
      fc.property(configArb, fc.array(stepArb, { maxLength: 60, size: 'max' }), (config, steps) => {
        const book = new OrderBook(config);
        const ledger = new LedgerBalances();
        const yes = outcomeAsset(MARKET, 0);
        const no = outcomeAsset(MARKET, 1);
        for (const owner of OWNERS) {
          for (const id of [COLLATERAL_ASSET, yes, no]) {
            ledger.apply({ type: 'credit', credit: { account: owner, id, delta: id === COLLATERAL_ASSET ? 10n ** 15n : 10n ** 6n, reason: CREDIT_REASONS.SIGNUP_GRANT } }, FEE_ACCOUNT);
          }
        }
        const submitted = new Map<string, { order: OrderInput; filled: bigint; cancelled: bigint }>();
        for (const step of materialise(config, steps)) {
          if ('cancel' in step) {
            const gone = book.cancel(step.cancel);
            if (gone !== null) submitted.get(gone.id)!.cancelled += gone.remaining;
          } else {
            const outcome = attempt(() => book.submit(step.order));
            if (!('ok' in outcome)) continue;
            const taker = step.order;
            const r: SubmitResult = outcome.ok;
            submitted.set(taker.id, { order: taker, filled: 0n, cancelled: r.cancelled });
            for (const fill of r.fills) {
              const maker = submitted.get(fill.makerOrderId)!;
              maker.filled += fill.shares;
              submitted.get(taker.id)!.filled += fill.shares;
              expect(fill.side).toBe(maker.order.outcome);
              expect(fill.priceBps).toBe(maker.order.priceBps);
              expect(fill.maker).not.toBe(fill.taker);
              const takerPrice = fill.kind === MATCH_KINDS.TRANSFER || fill.kind === MATCH_KINDS.TAKER_SELLS ? fill.priceBps : 10_000 - fill.priceBps;
              expect(fill.takerFee).toBe(takerFeeOf(fill.shares, takerPrice, config.takerFeeBps));

              const moves = settle(fill);
              ledger.applyMovements(moves);
              // Each party gets exactly the shares it traded, and pays (or receives) no worse than its limit.
              for (const [who, order, fee] of [
                [fill.taker, taker, fill.takerFee],
                [fill.maker, maker.order, 0n],
              ] as const) {
                const own = outcomeAsset(MARKET, order.outcome);
                const cash = netOf(moves, who, COLLATERAL_ASSET);
                const limit = fill.shares * BigInt(order.priceBps) * 100n;
                if (order.action === 'buy') {
                  expect(netOf(moves, who, own)).toBe(fill.shares);
                  expect(-cash).toBeLessThanOrEqual(limit + fee);
                } else {
                  expect(netOf(moves, who, own)).toBe(-fill.shares);
                  expect(cash).toBeGreaterThanOrEqual(limit - fee);
                }
              }
            }
          }
          for (const { order, filled, cancelled } of submitted.values()) {
            expect(filled + (book.get(order.id)?.remaining ?? 0n) + cancelled).toBe(order.shares);
          }
          const assets = new Set(ledger.entries().map((e) => e.assetId));
          for (const id of assets) expect(ledger.total(id)).toBe(0n);
          for (const e of ledger.entries()) if (e.account !== SUPPLY_ACCOUNT) expect(e.balance >= 0n).toBe(true);
        }
      }),
      replayable({ numRuns: 150 }),
    );
  });

  it('takes, fill after fill, the best-priced and then earliest resting order, and stops only where the rules say', () => {
    fc.assert(
      fc.property(configArb, fc.array(stepArb, { maxLength: 60, size: 'max' }), (config, steps) => {
        const book = new OrderBook(config);
        for (const step of materialise(config, steps)) {
          if ('cancel' in step) {
            book.cancel(step.cancel);
            continue;
          }
          const snapshot = book.orders();
          const outcome = attempt(() => book.submit(step.order));
          if (!('ok' in outcome)) continue;
          const taker = step.order;
          const r = outcome.ok;
          let left = taker.shares;
          for (const fill of r.fills) {
            const best = crossingInPriority(snapshot, taker)[0]!;
            expect(fill.makerOrderId).toBe(best.id);
            expect(best.owner).not.toBe(taker.owner);
            expect(fill.shares).toBe(left < best.remaining ? left : best.remaining);
            best.remaining -= fill.shares;
            left -= fill.shares;
          }
          const next = crossingInPriority(snapshot, taker)[0];
          if (r.reason === 'SELF_TRADE_PREVENTED') expect(next?.owner).toBe(taker.owner);
          if (r.status === 'resting' || r.reason === 'IOC_REMAINDER') expect(next).toBeUndefined();
          if (r.status === 'rejected') expect(book.orders()).toEqual(snapshot);
          if (r.reason === 'POST_ONLY_WOULD_MATCH') expect(crossingInPriority(snapshot, taker).length).toBeGreaterThan(0);
        }
      }),
      replayable({ numRuns: 150 }),
    );
  });

  it('continues identically after a restore of its resting orders', () => {
    fc.assert(
      fc.property(configArb, fc.array(stepArb, { maxLength: 40, size: 'max' }), fc.array(stepArb, { maxLength: 40, size: 'max' }), (config, before, after) => {
        const original = new OrderBook(config);
        for (const step of materialise(config, before)) {
          if ('cancel' in step) original.cancel(step.cancel);
          else attempt(() => original.submit(step.order));
        }
        const restored = new OrderBook(config);
        restored.restore(original.orders());
        expect(restored.orders()).toEqual(original.orders());
        // Later steps get later ids and seqs; cancels may name orders of the first part.
        const earlier = materialise(config, before).flatMap((s) => ('order' in s ? [s.order.id] : []));
        for (const step of materialise(config, after, before.length + 1, earlier)) {
          if ('cancel' in step) expect(restored.cancel(step.cancel)).toEqual(original.cancel(step.cancel));
          else expect(attempt(() => restored.submit(step.order))).toEqual(attempt(() => original.submit(step.order)));
        }
        expect(restored.depth(100)).toEqual(original.depth(100));
      }),
      replayable({ numRuns: 100 }),
    );
  });
});
