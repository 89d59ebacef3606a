/**
 * The order book's vocabulary (docs/orderbook.md): orders on one binary play-money market and the fills
 * the matching engine produces, each fill being exactly one ledger match (src/core/ledger/types.ts).
 * Pure: no I/O.
 */
import type { Account, MatchKind } from '../ledger/types.ts';

/** Which outcome an order trades: 0 or 1 of a binary market. */
export type Outcome = 0 | 1;
/** Buy or sell shares of the order's outcome. */
export type OrderAction = 'buy' | 'sell';
/** GTC rests what does not fill; IOC cancels it; FOK fills completely at once or not at all. */
export type TimeInForce = 'GTC' | 'IOC' | 'FOK';

/** An order as the engine receives it. The service assigns `id` and `seq` (time priority: lower is earlier). */
export interface OrderInput {
  id: string;
  owner: Account;
  outcome: Outcome;
  action: OrderAction;
  /** Limit price of the order's own outcome, basis points (1..9999, a multiple of the tick). */
  priceBps: number;
  /** Whole shares, ≥ the minimum size. */
  shares: bigint;
  tif: TimeInForce;
  /** Refused entirely (nothing fills, nothing rests) when any part would match on arrival. */
  postOnly: boolean;
  seq: bigint;
}

/** An order resting in the book with what is left of it. */
export interface RestingOrder extends OrderInput {
  remaining: bigint;
}

/**
 * One fill: the resting order is the maker, the arriving order the taker. `side` and `priceBps` are the
 * maker's outcome and the maker's price of it (the execution price); `kind` says how it settles:
 * TRANSFER (buy vs sell of the same outcome), MINT (buys of both outcomes) or MERGE (sells of both).
 * `takerFee` is collateral base units the taker pays (ceil of takerFeeBps of the taker's notional).
 */
export interface Fill {
  makerOrderId: string;
  takerOrderId: string;
  maker: Account;
  taker: Account;
  side: Outcome;
  kind: MatchKind;
  priceBps: number;
  shares: bigint;
  takerFee: bigint;
}

export interface EngineConfig {
  /** Price tick in bps (prices must be multiples of it). */
  tickBps: number;
  /** Smallest order in whole shares. */
  minShares: bigint;
  /** Taker fee in bps of the taker's notional (shares × taker price × 100 base units). */
  takerFeeBps: number;
}

export type SubmitStatus =
  /** Filled completely. */
  | 'filled'
  /** Part or none filled; the remainder rests (GTC). */
  | 'resting'
  /** Part or none filled; the remainder was cancelled (IOC, or self-trade prevention). */
  | 'cancelled'
  /** Nothing happened: post-only would have matched, or FOK could not fill completely. */
  | 'rejected';

export interface SubmitResult {
  status: SubmitStatus;
  fills: Fill[];
  /** What is left resting (GTC remainder), or null. */
  resting: RestingOrder | null;
  /** Shares of the order cancelled instead of filled or rested. */
  cancelled: bigint;
  /** Why: 'POST_ONLY_WOULD_MATCH' | 'FOK_NOT_FILLABLE' | 'SELF_TRADE_PREVENTED' | 'IOC_REMAINDER' | null. */
  reason: 'POST_ONLY_WOULD_MATCH' | 'FOK_NOT_FILLABLE' | 'SELF_TRADE_PREVENTED' | 'IOC_REMAINDER' | null;
}

/** One price level of the depth view, on the outcome-0 axis. */
export interface DepthLevel {
  priceBps: number;
  shares: bigint;
  orders: number;
}
