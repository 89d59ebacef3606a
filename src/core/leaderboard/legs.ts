/**
 * A trade seen from one wallet: a leg (docs/leaderboard.md "Legs"). An automated market's Trade is one leg, its
 * trader's (who paid, or whose shares were sold: a different recipient is a transfer outside P&L); an order-book fill
 * is two, the maker's and the taker's. Every amount is in the market's collateral base units and every share count in
 * share base units (a share paying one whole token is 10^decimals; an order book's whole share is 1 000 000).
 */
import { BPS, MATCH_KINDS, SHARE_VALUE, type MatchKind } from '../ledger/types.ts';

export interface Leg {
  wallet: string;
  /** 0-based outcome the leg bought or sold. */
  outcome: number;
  isBuy: boolean;
  /** Share base units, > 0. */
  shares: bigint;
  /** What the wallet paid (negative, fees included) or received (positive, net of fees), collateral base units. */
  cash: bigint;
  /** The leg's notional, fees excluded: its volume, collateral base units. */
  notional: bigint;
}

/** An automated market's Trade log (ILmsrMarket.Trade): cost excludes fees; the trader paid or received the fees on top. */
export interface TradeFacts {
  trader: string;
  outcome: number;
  isBuy: boolean;
  shares: bigint;
  cost: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
}

/** The trader's leg of a Trade: a buy pays cost + fees, a sell receives cost − fees. */
export function legOfTrade(t: TradeFacts): Leg {
  const fees = t.protocolFee + t.creatorFee;
  return { wallet: t.trader.toLowerCase(), outcome: t.outcome, isBuy: t.isBuy, shares: t.shares, cash: t.isBuy ? -(t.cost + fees) : t.cost - fees, notional: t.cost };
}

/** An order-book fill as the ledger matched it (docs/ledger.md "Matches"): whole shares, the maker's price in bps. */
export interface FillFacts {
  maker: string;
  taker: string;
  /** The maker's outcome. */
  side: number;
  kind: MatchKind;
  priceBps: number;
  /** Whole shares. */
  shares: bigint;
  /** Paid by the taker, collateral base units. */
  takerFee: bigint;
}

/** cost(p): `shares` whole shares at `bps`, collateral base units. */
const costAt = (shares: bigint, bps: bigint): bigint => shares * bps * (SHARE_VALUE / BPS);

/** The maker's and the taker's legs of a fill; the taker pays the fee. */
export function legsOfFill(f: FillFacts): { maker: Leg; taker: Leg } {
  const p = BigInt(f.priceBps);
  const shares = f.shares * SHARE_VALUE;
  const other = 1 - f.side;
  const makerCost = costAt(f.shares, p);
  const otherCost = costAt(f.shares, BPS - p);
  const leg = (wallet: string, outcome: number, isBuy: boolean, notional: bigint, fee: bigint): Leg => ({
    wallet: wallet.toLowerCase(),
    outcome,
    isBuy,
    shares,
    cash: (isBuy ? -notional : notional) - fee,
    notional,
  });
  switch (f.kind) {
    case MATCH_KINDS.TRANSFER: // the maker sells its side to the taker
      return { maker: leg(f.maker, f.side, false, makerCost, 0n), taker: leg(f.taker, f.side, true, makerCost, f.takerFee) };
    case MATCH_KINDS.MINT: // both buy: the maker its side at p, the taker the other at 1 − p
      return { maker: leg(f.maker, f.side, true, makerCost, 0n), taker: leg(f.taker, other, true, otherCost, f.takerFee) };
    case MATCH_KINDS.MERGE: // both sell: the maker its side at p, the taker the other at 1 − p
      return { maker: leg(f.maker, f.side, false, makerCost, 0n), taker: leg(f.taker, other, false, otherCost, f.takerFee) };
    case MATCH_KINDS.TAKER_SELLS: // the taker sells the maker's side to the resting buy
      return { maker: leg(f.maker, f.side, true, makerCost, 0n), taker: leg(f.taker, f.side, false, makerCost, f.takerFee) };
    default:
      throw new RangeError(`unknown match kind ${String(f.kind)}`);
  }
}
