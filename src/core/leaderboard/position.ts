/**
 * A wallet's position in one outcome, at average cost (docs/leaderboard.md "P&L"): a buy adds its shares and what it
 * paid (fees included) to the cost basis; a sell releases the basis of the shares sold in proportion and realizes
 * what it received (net of fees) minus that basis. A market's resolution realizes what is left at the settlement
 * value. Shares are share base units, money collateral base units.
 */
import type { Leg } from './legs.ts';

export interface Position {
  shares: bigint;
  /** What the shares held cost, fees included, collateral base units (≥ 0). */
  basis: bigint;
}

export const EMPTY_POSITION: Position = { shares: 0n, basis: 0n };

/**
 * The position after a leg and the P&L the leg realized (collateral base units, signed). A sell of more shares than
 * the position holds (shares bought by another wallet and sent here) sells the extra at no cost basis.
 */
export function applyLeg(position: Position, leg: Pick<Leg, 'isBuy' | 'shares' | 'cash'>): { position: Position; realized: bigint } {
  if (leg.isBuy) return { position: { shares: position.shares + leg.shares, basis: position.basis - leg.cash }, realized: 0n };
  const sold = leg.shares < position.shares ? leg.shares : position.shares;
  const released = position.shares === 0n ? 0n : (position.basis * sold) / position.shares;
  return { position: { shares: position.shares - sold, basis: position.basis - released }, realized: leg.cash - released };
}

/**
 * What one share base unit of `outcome` (0-based) pays once the market is final: 1 for the winning outcome, 0 for the
 * others, 1/outcomeCount of every outcome for void (finalOutcome 0; 1-based otherwise, as the resolver reports it).
 * Returns the payout of `shares`, collateral base units, rounded down.
 */
export function settlementValue(shares: bigint, outcome: number, finalOutcome: number, outcomeCount: number): bigint {
  if (finalOutcome === 0) return shares / BigInt(outcomeCount);
  return finalOutcome === outcome + 1 ? shares : 0n;
}
