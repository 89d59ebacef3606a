/** Prices as the market reads answer them: exact decimals of the 1e18-scaled prices, and a new market's. */
import { WAD, wadToDecimal } from '../../../core/markets/price.ts';

/** Equal prices 1/n (1e18-scaled): every LMSR market's prices at creation, before any trade. */
export const initialPrices = (n: number): string[] => Array.from({ length: n }, () => (WAD / BigInt(n)).toString());

/** 1e18-scaled prices as exact decimals (wadToDecimal). */
export const toPrices = (wads: readonly string[]): string[] => wads.map((w) => wadToDecimal(w));
