/**
 * PM purchase terms (docs/economy.md): the price, what a dollar or a USDC payment buys, the card bundles and the
 * per-wallet card cap. Pure: amounts are bigint base units (PM 18 decimals, USDC 6), dollars whole numbers.
 */
import { keccak256, toHex, type Hex } from 'viem';

export const PM_DECIMALS = 18;
export const USDC_DECIMALS = 6;
const PM_UNIT = 10n ** BigInt(PM_DECIMALS);
const USDC_PER_USD = 10n ** BigInt(USDC_DECIMALS);

/** A card session id as the spec writes it (CardSessionId). */
export const CARD_SESSION_ID_PATTERN = /^cs_[A-Za-z0-9_]{8,240}$/;

/** PM base units a USDC payment buys at `priceUsdcPerPm` (USDC base units per whole PM), rounded down: the sale contract's quote. */
export function pmForUsdc(paymentAmount: bigint, priceUsdcPerPm: bigint): bigint {
  return (paymentAmount * PM_UNIT) / priceUsdcPerPm;
}

/** PM base units `usd` whole dollars buy by card: the same price as the relay sale. */
export function pmForUsd(usd: number, priceUsdcPerPm: bigint): bigint {
  return pmForUsdc(BigInt(usd) * USDC_PER_USD, priceUsdcPerPm);
}

/** The price as decimal strings for people: dollars per PM and PM per dollar, exact to the base unit. */
export function priceStrings(priceUsdcPerPm: bigint): { usdPerPm: string; pmPerUsd: string } {
  return { usdPerPm: decimalString(priceUsdcPerPm, USDC_DECIMALS), pmPerUsd: decimalString(pmForUsd(1, priceUsdcPerPm), PM_DECIMALS) };
}

/** A base-unit amount as a decimal string without trailing zeros ("0.01", "100"). */
export function decimalString(amount: bigint, decimals: number): string {
  const unit = 10n ** BigInt(decimals);
  const whole = amount / unit;
  const fraction = (amount % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}

export type CapCheck = { allowed: true; remainingUsd: number } | { allowed: false; spentUsd: number; capUsd: number; remainingUsd: number };

/** Whether `usd` more fits under the cap, given what the wallet bought (or holds open) in the window. */
export function checkCap(spentUsd: number, usd: number, capUsd: number): CapCheck {
  const remainingUsd = Math.max(0, capUsd - spentUsd);
  return usd <= remainingUsd ? { allowed: true, remainingUsd: remainingUsd - usd } : { allowed: false, spentUsd, capUsd, remainingUsd };
}

/** The on-chain id of a card order (PmSale.deliver's orderId): keccak256 of the provider's session id. */
export const cardOrderId = (sessionId: string): Hex => keccak256(toHex(sessionId));
