/**
 * A deliberately plain reference of the matching rules (docs/orderbook.md "Matching engine"): one array
 * of resting orders, filtered and sorted on every step, no cleverness. Only tests and bench/orderbook.ts
 * use it, to check OrderBook (engine.ts) against an independent reading of the rules. Pure.
 */
import { MATCH_KINDS, type MatchKind } from '../ledger/types.ts';
import type { DepthLevel, EngineConfig, Fill, OrderInput, RestingOrder, SubmitResult } from './types.ts';

type Order = OrderInput | RestingOrder;

const isBid = (o: Order): boolean => (o.outcome === 0 && o.action === 'buy') || (o.outcome === 1 && o.action === 'sell');
/** The order's price on the outcome-0 axis, bps. */
const axisPrice = (o: Order): number => (o.outcome === 0 ? o.priceBps : 10_000 - o.priceBps);

export class NaiveOrderBook {
  private book: RestingOrder[] = [];
  private lastSeq: bigint | null = null;

  constructor(private readonly config: EngineConfig) {}

  submit(input: OrderInput): SubmitResult {
    this.check(input);
    if (this.book.some((r) => r.id === input.id)) throw new RangeError('duplicate id');
    if (this.lastSeq !== null && input.seq <= this.lastSeq) throw new RangeError('seq not increasing');
    this.lastSeq = input.seq;

    // The resting orders the arriving one may trade with, best first.
    const crossing = (): RestingOrder[] =>
      this.book
        .filter((r) => isBid(r) !== isBid(input) && (isBid(input) ? axisPrice(input) >= axisPrice(r) : axisPrice(r) >= axisPrice(input)))
        .sort((a, b) => {
          if (axisPrice(a) !== axisPrice(b)) return isBid(a) ? axisPrice(b) - axisPrice(a) : axisPrice(a) - axisPrice(b);
          return a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0;
        });

    if (input.postOnly && crossing().length > 0) {
      return { status: 'rejected', fills: [], resting: null, cancelled: input.shares, reason: 'POST_ONLY_WOULD_MATCH' };
    }
    if (input.tif === 'FOK') {
      let available = 0n;
      for (const r of crossing()) {
        if (r.owner === input.owner) break;
        available += r.remaining;
      }
      if (available < input.shares) return { status: 'rejected', fills: [], resting: null, cancelled: input.shares, reason: 'FOK_NOT_FILLABLE' };
    }

    const fills: Fill[] = [];
    let left = input.shares;
    let selfTrade = false;
    while (left > 0n) {
      const maker = crossing()[0];
      if (maker === undefined) break;
      if (maker.owner === input.owner) {
        selfTrade = true;
        break;
      }
      const shares = left < maker.remaining ? left : maker.remaining;
      let kind: MatchKind;
      if (maker.outcome === input.outcome) kind = input.action === 'buy' ? MATCH_KINDS.TRANSFER : MATCH_KINDS.TAKER_SELLS;
      else if (input.action === 'buy') kind = MATCH_KINDS.MINT;
      else kind = MATCH_KINDS.MERGE;
      const takerPrice = maker.outcome === input.outcome ? maker.priceBps : 10_000 - maker.priceBps;
      // ceil(shares × takerPrice × 100 × feeBps / 10000)
      const feeTimes10000 = shares * BigInt(takerPrice) * 100n * BigInt(this.config.takerFeeBps);
      let takerFee = feeTimes10000 / 10_000n;
      if (takerFee * 10_000n < feeTimes10000) takerFee += 1n;
      fills.push({
        makerOrderId: maker.id,
        takerOrderId: input.id,
        maker: maker.owner,
        taker: input.owner,
        side: maker.outcome,
        kind,
        priceBps: maker.priceBps,
        shares,
        takerFee,
      });
      left -= shares;
      maker.remaining -= shares;
      if (maker.remaining === 0n) this.book = this.book.filter((r) => r !== maker);
    }

    if (left === 0n) return { status: 'filled', fills, resting: null, cancelled: 0n, reason: null };
    if (selfTrade) return { status: 'cancelled', fills, resting: null, cancelled: left, reason: 'SELF_TRADE_PREVENTED' };
    if (input.tif === 'GTC') {
      const resting: RestingOrder = { ...input, remaining: left };
      this.book.push(resting);
      return { status: 'resting', fills, resting: { ...resting }, cancelled: 0n, reason: null };
    }
    return { status: 'cancelled', fills, resting: null, cancelled: left, reason: 'IOC_REMAINDER' };
  }

  cancel(orderId: string): RestingOrder | null {
    const found = this.book.find((r) => r.id === orderId);
    if (found === undefined) return null;
    this.book = this.book.filter((r) => r !== found);
    return { ...found };
  }

  get(orderId: string): RestingOrder | null {
    const found = this.book.find((r) => r.id === orderId);
    return found === undefined ? null : { ...found };
  }

  depth(levels: number): { bids: DepthLevel[]; asks: DepthLevel[] } {
    const side = (bid: boolean): DepthLevel[] => {
      const prices = [...new Set(this.book.filter((r) => isBid(r) === bid).map(axisPrice))].sort((a, b) => (bid ? b - a : a - b));
      return prices.slice(0, levels).map((priceBps) => {
        const at = this.book.filter((r) => isBid(r) === bid && axisPrice(r) === priceBps);
        return { priceBps, shares: at.reduce((sum, r) => sum + r.remaining, 0n), orders: at.length };
      });
    };
    return { bids: side(true), asks: side(false) };
  }

  /** No checks beyond submit's: the reference trusts what it is given. */
  restore(orders: Iterable<RestingOrder>): void {
    for (const o of orders) this.book.push({ ...o });
    this.book.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
    for (const o of this.book) if (this.lastSeq === null || o.seq > this.lastSeq) this.lastSeq = o.seq;
  }

  orders(): RestingOrder[] {
    return [...this.book].sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0)).map((r) => ({ ...r }));
  }

  private check(o: OrderInput): void {
    const { tickBps, minShares } = this.config;
    if (o.outcome !== 0 && o.outcome !== 1) throw new RangeError('outcome');
    if (o.action !== 'buy' && o.action !== 'sell') throw new RangeError('action');
    if (!Number.isInteger(o.priceBps) || o.priceBps % tickBps !== 0 || o.priceBps < 1 || o.priceBps > 9_999) throw new RangeError('price');
    if (o.shares < minShares) throw new RangeError('shares');
    if (!['GTC', 'IOC', 'FOK'].includes(o.tif)) throw new RangeError('tif');
  }
}
