/**
 * One binary market's limit order book and its matching engine (docs/orderbook.md "Matching engine").
 * Pure: no I/O, no clock. Checked against the deliberately plain `naive.ts` in engine.test.ts.
 */
import { BPS, MATCH_KINDS, SHARE_VALUE, type Account, type MatchKind } from '../ledger/types.ts';
import type { DepthLevel, EngineConfig, Fill, OrderAction, OrderInput, Outcome, RestingOrder, SubmitResult, TimeInForce } from './types.ts';

/** A complete set (one share of each outcome) is worth 10_000 bps. */
const SET_BPS = 10_000;
/** The one place where the fee rounding lives: ceil(shares × takerPrice × 100 × feeBps / 10_000). */
const FEE_DIVISOR = 100n;

/**
 * Where an order sits on the outcome-0 price axis: buying outcome 0 or selling outcome 1 is a bid,
 * the rest are asks; outcome 1 at q is outcome 0 at 10_000 − q (bps).
 */
export function axisOf(outcome: Outcome, action: OrderAction, priceBps: number): { bid: boolean; axisBps: number } {
  return { bid: (outcome === 0) === (action === 'buy'), axisBps: outcome === 0 ? priceBps : SET_BPS - priceBps };
}

/**
 * The price of the taker's own outcome at execution, bps: the maker's price for TRANSFER and TAKER_SELLS (same
 * outcome), its complement 10_000 − maker price for MINT and MERGE (the other outcome).
 */
export function takerPriceOf(kind: MatchKind, makerPriceBps: number): number {
  return kind === MATCH_KINDS.TRANSFER || kind === MATCH_KINDS.TAKER_SELLS ? makerPriceBps : SET_BPS - makerPriceBps;
}

/**
 * What the taker paid (a buy) or received (a sell) for a fill's shares, fees excluded, in collateral base
 * units: shares × taker price × 100. The market reads' trade cost and volume (migration 0011 repeats it in SQL).
 */
export function fillCostOf(kind: MatchKind, makerPriceBps: number, shares: bigint): bigint {
  return shares * BigInt(takerPriceOf(kind, makerPriceBps)) * (SHARE_VALUE / BPS);
}

/** The outcome-0 price a fill traded at, bps: the maker's price of its own outcome put on the outcome-0 axis. */
export const outcome0PriceOf = (makerOutcome: Outcome, makerPriceBps: number): number => (makerOutcome === 0 ? makerPriceBps : SET_BPS - makerPriceBps);

/**
 * The taker fee of one fill, in collateral base units: ceil(shares × takerPriceBps × 100 × takerFeeBps / 10_000),
 * where takerPriceBps is the price of the taker's own outcome at execution. Rounds up, so a fee is never 0 for
 * a non-zero rate.
 */
export function takerFeeOf(shares: bigint, takerPriceBps: number, takerFeeBps: number): bigint {
  const factor = BigInt(takerPriceBps * takerFeeBps);
  return (shares * factor + FEE_DIVISOR - 1n) / FEE_DIVISOR;
}

/** An order in the book. `live` turns false when it is filled or cancelled (the queue drops it lazily). */
class Entry {
  live = true;
  constructor(
    readonly id: string,
    readonly owner: Account,
    readonly outcome: Outcome,
    readonly action: OrderAction,
    readonly priceBps: number,
    readonly shares: bigint,
    readonly tif: TimeInForce,
    readonly postOnly: boolean,
    readonly seq: bigint,
    public remaining: bigint,
    readonly bid: boolean,
    /** Axis price / tick. */
    readonly idx: number,
  ) {}

  toResting(): RestingOrder {
    return {
      id: this.id,
      owner: this.owner,
      outcome: this.outcome,
      action: this.action,
      priceBps: this.priceBps,
      shares: this.shares,
      tif: this.tif,
      postOnly: this.postOnly,
      seq: this.seq,
      remaining: this.remaining,
    };
  }
}

/**
 * One price level: a FIFO queue (array + head index) with the live count and shares kept up to date.
 * Cancelled entries stay in the array, marked dead, until they reach the head, the level empties, or
 * dead entries outnumber live ones (then the array is compacted), so memory stays O(live orders).
 */
class Level {
  queue: Entry[] = [];
  head = 0;
  live = 0;
  shares = 0n;

  push(e: Entry): void {
    this.queue.push(e);
    this.live++;
    this.shares += e.remaining;
  }

  /** The earliest live entry; only called when live > 0. */
  front(): Entry {
    const q = this.queue;
    let h = this.head;
    let e = q[h]!;
    while (!e.live) e = q[++h]!;
    this.head = h;
    return e;
  }

  /** Drops the front entry, which has just been filled completely. */
  popFront(e: Entry): void {
    e.live = false;
    this.live--;
    this.head++;
    if (this.live === 0) this.clear();
    else if (this.head > 64 && this.head * 2 > this.queue.length) this.compact();
  }

  remove(e: Entry): void {
    e.live = false;
    this.live--;
    this.shares -= e.remaining;
    if (this.live === 0) this.clear();
    else if (this.queue.length - this.head - this.live > this.live + 32) this.compact();
  }

  private clear(): void {
    this.queue = [];
    this.head = 0;
    this.shares = 0n;
  }

  private compact(): void {
    const kept: Entry[] = [];
    for (let i = this.head; i < this.queue.length; i++) if (this.queue[i]!.live) kept.push(this.queue[i]!);
    this.queue = kept;
    this.head = 0;
  }
}

const TIFS: ReadonlySet<unknown> = new Set<TimeInForce>(['GTC', 'IOC', 'FOK']);

/**
 * The order book of one binary market, on one price axis: the price of outcome 0 in bps.
 *
 * - Buy outcome 0 at p is a bid at p; sell outcome 0 at p an ask at p; buy outcome 1 at q an ask at
 *   10_000 − q; sell outcome 1 at q a bid at 10_000 − q. A bid and an ask cross when bid ≥ ask.
 * - Settlement: buy 0 vs sell 0 and buy 1 vs sell 1 are TRANSFERs of that outcome; buy 0 vs buy 1 is a
 *   MINT; sell 0 vs sell 1 a MERGE. The execution price is the maker's (resting order's) limit price; a
 *   Fill carries the maker's outcome as `side` and its limit price of that outcome as `priceBps`.
 * - Price-time priority: best axis price first (highest bid, lowest ask), then lowest `seq`. A partial
 *   fill leaves the maker's remainder where it was.
 * - GTC rests the remainder; IOC cancels it (IOC_REMAINDER); FOK fills completely on arrival or is
 *   rejected (FOK_NOT_FILLABLE). Post-only is rejected (POST_ONLY_WOULD_MATCH) whenever its price
 *   crosses the best opposite price on arrival — own orders included, so a post-only order never
 *   reaches self-trade prevention. A rejected order changes nothing; its `cancelled` is all its shares.
 * - Self-trade prevention, "cancel newest": when the next resting order to match has the arriving
 *   order's owner, matching stops and the arriving order's remainder is cancelled
 *   (SELF_TRADE_PREVENTED; status 'cancelled', whatever its TIF — it never rests). Resting orders are
 *   never touched by it. FOK counts only the liquidity ahead of the first own order.
 * - Taker fee per fill: takerFeeOf(shares, takerPrice, takerFeeBps) collateral base units, takerPrice
 *   being the taker's own outcome's price: the maker's price for a TRANSFER, 10_000 − it for MINT/MERGE.
 *
 * Cost: submit is O(levels crossed + fills); cancel O(1) amortised; depth O(price range). Levels are a
 * dense array indexed by axis price / tick with best-bid and best-ask pointers.
 */
export class OrderBook {
  private readonly tick: number;
  /** 10_000 / tick: the axis index of price 10_000, also the "no ask" sentinel (0 is "no bid"). */
  private readonly top: number;
  private readonly minShares: bigint;
  /** By taker price / tick: BigInt(takerPrice × takerFeeBps). */
  private readonly feeFactor: bigint[];
  private readonly bidLevels: (Level | undefined)[];
  private readonly askLevels: (Level | undefined)[];
  private bestBid = 0;
  private bestAsk: number;
  private readonly byId = new Map<string, Entry>();
  private lastSeq: bigint | null = null;

  /** `config`: tick in bps (must divide 10_000), minimum size in whole shares, taker fee in bps. */
  constructor(config: EngineConfig) {
    const { tickBps, minShares, takerFeeBps } = config;
    if (!Number.isInteger(tickBps) || tickBps < 1 || tickBps > 5_000 || SET_BPS % tickBps !== 0) {
      throw new RangeError(`tickBps ${tickBps} must be a whole number of bps that divides 10000 (e.g. 1, 10, 100)`);
    }
    if (typeof minShares !== 'bigint' || minShares < 1n) throw new RangeError(`minShares ${minShares} must be a bigint ≥ 1`);
    if (!Number.isInteger(takerFeeBps) || takerFeeBps < 0 || takerFeeBps > SET_BPS) {
      throw new RangeError(`takerFeeBps ${takerFeeBps} must be a whole number of bps in 0..10000`);
    }
    this.tick = tickBps;
    this.top = SET_BPS / tickBps;
    this.minShares = minShares;
    this.bestAsk = this.top;
    this.feeFactor = Array.from({ length: this.top + 1 }, (_, i) => BigInt(i * tickBps * takerFeeBps));
    this.bidLevels = new Array<Level | undefined>(this.top + 1).fill(undefined);
    this.askLevels = new Array<Level | undefined>(this.top + 1).fill(undefined);
  }

  /**
   * Matches one order against the book and rests, cancels or rejects what is left (see the class
   * comment). Throws RangeError, changing nothing, for an invalid order: price off the tick or outside
   * tick..10_000 − tick, shares below the minimum, outcome not 0/1, unknown action or TIF, an id
   * already resting in this book, or a seq not strictly greater than every seq seen before.
   */
  submit(order: OrderInput): SubmitResult {
    const { id, owner, outcome, action, priceBps, shares, tif, postOnly, seq } = order;
    this.validate(order);
    if (this.byId.has(id)) throw new RangeError(`order id '${id}' is already resting in this book`);
    if (this.lastSeq !== null && seq <= this.lastSeq) throw new RangeError(`seq ${seq} is not greater than the last seq ${this.lastSeq}`);
    this.lastSeq = seq;

    const bid = (outcome === 0) === (action === 'buy');
    const idx = (outcome === 0 ? priceBps : SET_BPS - priceBps) / this.tick;
    const crosses = bid ? this.bestAsk <= idx : this.bestBid >= idx;
    if (postOnly && crosses) return rejected(shares, 'POST_ONLY_WOULD_MATCH');
    if (tif === 'FOK' && (!crosses || this.fillableBeforeOwn(bid, idx, owner, shares) < shares)) return rejected(shares, 'FOK_NOT_FILLABLE');

    const fills: Fill[] = [];
    let rem = shares;
    let selfTrade = false;
    if (crosses) {
      const levels = bid ? this.askLevels : this.bidLevels;
      const takerBuys = action === 'buy';
      while (rem > 0n) {
        const best = bid ? this.bestAsk : this.bestBid;
        if (bid ? best > idx : best < idx) break;
        const level = levels[best]!;
        const maker = level.front();
        if (maker.owner === owner) {
          selfTrade = true;
          break;
        }
        const q = rem < maker.remaining ? rem : maker.remaining;
        rem -= q;
        maker.remaining -= q;
        level.shares -= q;
        const kind = maker.outcome === outcome ? (takerBuys ? MATCH_KINDS.TRANSFER : MATCH_KINDS.TAKER_SELLS) : takerBuys ? MATCH_KINDS.MINT : MATCH_KINDS.MERGE;
        const takerPrice = takerPriceOf(kind, maker.priceBps);
        const factor = this.feeFactor[takerPrice / this.tick]!;
        fills.push({
          makerOrderId: maker.id,
          takerOrderId: id,
          maker: maker.owner,
          taker: owner,
          side: maker.outcome,
          kind,
          priceBps: maker.priceBps,
          shares: q,
          takerFee: factor === 0n ? 0n : (q * factor + FEE_DIVISOR - 1n) / FEE_DIVISOR,
        });
        if (maker.remaining === 0n) {
          this.byId.delete(maker.id);
          level.popFront(maker);
          if (level.live === 0) {
            if (bid) this.bestAsk = this.nextAsk(best);
            else this.bestBid = this.nextBid(best);
          }
        }
      }
    }

    if (rem === 0n) return { status: 'filled', fills, resting: null, cancelled: 0n, reason: null };
    if (selfTrade) return { status: 'cancelled', fills, resting: null, cancelled: rem, reason: 'SELF_TRADE_PREVENTED' };
    if (tif !== 'GTC') return { status: 'cancelled', fills, resting: null, cancelled: rem, reason: 'IOC_REMAINDER' };
    const entry = new Entry(id, owner, outcome, action, priceBps, shares, tif, postOnly, seq, rem, bid, idx);
    this.insert(entry);
    return { status: 'resting', fills, resting: entry.toResting(), cancelled: 0n, reason: null };
  }

  /** Removes a resting order; returns it as it was (with what remained), or null if it is not resting. */
  cancel(orderId: string): RestingOrder | null {
    const e = this.byId.get(orderId);
    if (e === undefined) return null;
    this.byId.delete(orderId);
    const level = (e.bid ? this.bidLevels : this.askLevels)[e.idx]!;
    level.remove(e);
    if (level.live === 0) {
      if (e.bid && e.idx === this.bestBid) this.bestBid = this.nextBid(e.idx);
      if (!e.bid && e.idx === this.bestAsk) this.bestAsk = this.nextAsk(e.idx);
    }
    return e.toResting();
  }

  /** A resting order (a copy), or null. */
  get(orderId: string): RestingOrder | null {
    return this.byId.get(orderId)?.toResting() ?? null;
  }

  /**
   * The best `levels` price levels of each side on the outcome-0 axis: bids descending, asks ascending,
   * each with its axis price (bps), total remaining shares and number of orders.
   */
  depth(levels: number): { bids: DepthLevel[]; asks: DepthLevel[] } {
    if (!Number.isInteger(levels) || levels < 0) throw new RangeError(`levels ${levels} must be a whole number ≥ 0`);
    const bids: DepthLevel[] = [];
    const asks: DepthLevel[] = [];
    for (let i = this.bestBid; i > 0 && bids.length < levels; i--) {
      const l = this.bidLevels[i];
      if (l !== undefined && l.live > 0) bids.push({ priceBps: i * this.tick, shares: l.shares, orders: l.live });
    }
    for (let i = this.bestAsk; i < this.top && asks.length < levels; i++) {
      const l = this.askLevels[i];
      if (l !== undefined && l.live > 0) asks.push({ priceBps: i * this.tick, shares: l.shares, orders: l.live });
    }
    return { bids, asks };
  }

  /**
   * Rebuilds the book after a restart from its resting orders, in any order, without matching. Only on
   * a fresh book (nothing submitted or restored before). All or nothing: throws RangeError, restoring
   * nothing, if an order is invalid (as for submit, plus: TIF must be GTC, 0 < remaining ≤ shares), ids
   * or seqs repeat, or the orders would cross (best bid ≥ best ask: a crossed book is never stored).
   * Afterwards every new seq must exceed the largest restored one.
   */
  restore(orders: Iterable<RestingOrder>): void {
    if (this.lastSeq !== null || this.byId.size > 0) throw new Error('restore needs a fresh OrderBook (nothing submitted or restored yet)');
    const list = [...orders];
    const ids = new Set<string>();
    const seqs = new Set<bigint>();
    let maxBid = 0;
    let minAsk = this.top;
    for (const o of list) {
      this.validate(o);
      if (o.tif !== 'GTC') throw new RangeError(`order '${o.id}' has TIF ${o.tif}: only GTC orders rest`);
      if (typeof o.remaining !== 'bigint' || o.remaining < 1n || o.remaining > o.shares) {
        throw new RangeError(`order '${o.id}' has remaining ${o.remaining} outside 1..${o.shares}`);
      }
      if (ids.has(o.id)) throw new RangeError(`order id '${o.id}' is given twice`);
      if (seqs.has(o.seq)) throw new RangeError(`seq ${o.seq} is given twice`);
      ids.add(o.id);
      seqs.add(o.seq);
      const { bid, axisBps } = axisOf(o.outcome, o.action, o.priceBps);
      const idx = axisBps / this.tick;
      if (bid && idx > maxBid) maxBid = idx;
      if (!bid && idx < minAsk) minAsk = idx;
    }
    if (maxBid >= minAsk) throw new RangeError(`the orders cross (bid ${maxBid * this.tick} ≥ ask ${minAsk * this.tick} bps): a stored book is never crossed`);
    list.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
    for (const o of list) {
      const { bid, axisBps } = axisOf(o.outcome, o.action, o.priceBps);
      this.insert(new Entry(o.id, o.owner, o.outcome, o.action, o.priceBps, o.shares, o.tif, o.postOnly, o.seq, o.remaining, bid, axisBps / this.tick));
      this.lastSeq = o.seq;
    }
  }

  /** Every resting order (copies), in seq order. */
  orders(): RestingOrder[] {
    const out: RestingOrder[] = [];
    for (const e of this.byId.values()) out.push(e.toResting());
    return out;
  }

  /** Field checks shared by submit and restore; throws RangeError. */
  private validate(o: OrderInput): void {
    if (typeof o.id !== 'string' || o.id === '') throw new RangeError('order id must be a non-empty string');
    if (o.outcome !== 0 && o.outcome !== 1) throw new RangeError(`order '${o.id}': outcome ${String(o.outcome)} must be 0 or 1`);
    if (o.action !== 'buy' && o.action !== 'sell') throw new RangeError(`order '${o.id}': action '${String(o.action)}' must be buy or sell`);
    const p = o.priceBps;
    if (!Number.isInteger(p) || p < this.tick || p > SET_BPS - this.tick || p % this.tick !== 0) {
      throw new RangeError(`order '${o.id}': priceBps ${p} must be a multiple of the ${this.tick}-bps tick in ${this.tick}..${SET_BPS - this.tick}`);
    }
    if (typeof o.shares !== 'bigint' || o.shares < this.minShares) {
      throw new RangeError(`order '${o.id}': shares ${String(o.shares)} must be a bigint ≥ the minimum of ${this.minShares}`);
    }
    if (!TIFS.has(o.tif)) throw new RangeError(`order '${o.id}': tif '${String(o.tif)}' must be GTC, IOC or FOK`);
    if (typeof o.postOnly !== 'boolean') throw new RangeError(`order '${o.id}': postOnly must be a boolean`);
    if (typeof o.seq !== 'bigint') throw new RangeError(`order '${o.id}': seq must be a bigint`);
  }

  /** Shares an arriving order could take before it meets its owner's first resting order (stops at `need`). */
  private fillableBeforeOwn(bid: boolean, idx: number, owner: Account, need: bigint): bigint {
    let sum = 0n;
    const levels = bid ? this.askLevels : this.bidLevels;
    const step = bid ? 1 : -1;
    for (let i = bid ? this.bestAsk : this.bestBid; bid ? i <= idx : i >= idx; i += step) {
      const l = levels[i];
      if (l === undefined || l.live === 0) continue;
      for (let k = l.head; k < l.queue.length; k++) {
        const e = l.queue[k]!;
        if (!e.live) continue;
        if (e.owner === owner) return sum;
        sum += e.remaining;
        if (sum >= need) return sum;
      }
    }
    return sum;
  }

  private insert(e: Entry): void {
    const levels = e.bid ? this.bidLevels : this.askLevels;
    let level = levels[e.idx];
    if (level === undefined) level = levels[e.idx] = new Level();
    level.push(e);
    this.byId.set(e.id, e);
    if (e.bid) {
      if (e.idx > this.bestBid) this.bestBid = e.idx;
    } else if (e.idx < this.bestAsk) this.bestAsk = e.idx;
  }

  /** The best bid index below `from` with live orders, or 0. */
  private nextBid(from: number): number {
    let i = from - 1;
    while (i > 0 && !(this.bidLevels[i]?.live ?? 0)) i--;
    return i;
  }

  /** The best ask index above `from` with live orders, or top. */
  private nextAsk(from: number): number {
    let i = from + 1;
    while (i < this.top && !(this.askLevels[i]?.live ?? 0)) i++;
    return i;
  }
}

function rejected(shares: bigint, reason: 'POST_ONLY_WOULD_MATCH' | 'FOK_NOT_FILLABLE'): SubmitResult {
  return { status: 'rejected', fills: [], resting: null, cancelled: shares, reason };
}
