/**
 * The order book's wire units (docs/units.md) against the units it computes in. On the wire, every market
 * surface speaks one system: prices are exact decimal strings in [0, 1] (the chain's 1e18-scaled integers
 * rendered by wadToDecimal), shares are base units of the collateral (a share that pays one play dollar is
 * SHARE_VALUE = 1_000_000 base units). Inside, the matching engine, the order rows and the ledger keep
 * basis points and whole shares, which is what a ledger match carries on chain. Pure: no I/O.
 */
import { BPS, SHARE_VALUE } from '../ledger/types.ts';
import { WAD, wadToDecimal } from '../markets/price.ts';

const PRICE = /^(0|1)(?:\.([0-9]{1,18}))?$/;

/** A price in basis points (0..10 000) as the wire's exact decimal string: 5700 → "0.57". */
export const priceOfBps = (bps: number | bigint): string => wadToDecimal((WAD * BigInt(bps)) / BPS);

/**
 * A wire price ("0.57", a decimal in [0, 1] with at most 18 places) in basis points; null when it is not a
 * decimal in [0, 1] or not a whole number of basis points ("0.575" → null). 1 bps = 0.0001.
 */
export function bpsOfPrice(price: string): number | null {
  const m = PRICE.exec(price);
  if (!m) return null;
  const wad = BigInt(m[1]!) * WAD + BigInt((m[2] ?? '').padEnd(18, '0'));
  if (wad > WAD || (wad * BPS) % WAD !== 0n) return null;
  return Number((wad * BPS) / WAD);
}

/** Whole shares as base units on the wire: 6 → 6_000_000. */
export const baseUnitsOfShares = (shares: bigint | string | number): bigint => BigInt(shares) * SHARE_VALUE;

/** Base units of shares as whole shares; null when they are not a whole number of shares (the ledger holds whole shares). */
export function sharesOfBaseUnits(units: bigint): bigint | null {
  return units % SHARE_VALUE === 0n ? units / SHARE_VALUE : null;
}
