/**
 * The one money unit of the leaderboards: USD micro-dollars (6 decimals, 1 000 000 = $1), and the rule that turns
 * each collateral into it (docs/leaderboard.md "Collateral"). USDC and play money count one to one as dollars; PM has
 * no dollar price this service publishes, so markets in PM are left out of every leaderboard rather than priced by a
 * guess.
 */

export const USD_DECIMALS = 6;

/** How one collateral converts: its decimals, or null when it is left out. */
export interface UsdRule {
  decimals: number;
}

/** The collaterals that count, by symbol (PLAY is the order books' play money, 6 decimals). */
const COUNTED: ReadonlySet<string> = new Set(['USDC', 'PLAY']);

/** The rule of a collateral symbol with its decimals; null for a collateral the leaderboards leave out (PM, unknown). */
export function usdRuleOf(symbol: string, decimals: number): UsdRule | null {
  return COUNTED.has(symbol.toUpperCase()) ? { decimals } : null;
}

/** `amount` collateral base units in USD micro-dollars, truncated toward zero (exact for 6-decimal collaterals). */
export function toUsdMicro(amount: bigint, rule: UsdRule): bigint {
  const shift = rule.decimals - USD_DECIMALS;
  if (shift === 0) return amount;
  return shift > 0 ? amount / 10n ** BigInt(shift) : amount * 10n ** BigInt(-shift);
}

export const WAD = 10n ** 18n;

/**
 * What `shares` (collateral base units: a share paying one token is 10^decimals) are worth at a 1e18-scaled price,
 * in collateral base units, rounded down.
 */
export const valueAt = (shares: bigint, priceWad: bigint): bigint => (shares * priceWad) / WAD;
