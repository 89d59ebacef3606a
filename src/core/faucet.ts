/**
 * The test-funds faucet (docs/faucet.md): what one grant pays, how often, and where it exists at all. Pure: the
 * service sends the transfers (src/services/faucet/), the documents publish these numbers.
 */

/**
 * What one grant pays, in whole tokens (the token's decimals, read from the chain, make the base units): gas money in
 * ETH, TestUSDC (minted by the operator, which owns it) and PM (from the operator's supply).
 */
export const FAUCET_GRANT_WHOLE = { ETH: 1n, USDC: 10_000n, PM: 10_000n } as const;
export type FaucetAsset = keyof typeof FAUCET_GRANT_WHOLE;
export const FAUCET_ASSETS = Object.keys(FAUCET_GRANT_WHOLE) as FaucetAsset[];
/** Native ETH decimals (wei). */
export const ETH_DECIMALS = 18;

/** The window of the per-wallet and per-key budgets, ms (24 h). */
export const FAUCET_WINDOW_MS = 24 * 3_600_000;
/** Grants per window: for one wallet, and for one API key. */
export const FAUCET_LIMITS = { perWallet: 1, perKey: 1 } as const;

/** Why the faucet is off (problem extension `reason` of 403 FEATURE_DISABLED), or null when it is on. */
export type FaucetOffReason = 'FAUCET_LIVE_ENVIRONMENT' | 'FAUCET_EXTERNAL_CHAIN';

/**
 * The faucet exists only on the embedded test environment: on a live environment there are no test funds, and on
 * an external chain the service does not own the USDC it would have to mint.
 */
export function faucetOffReason(environment: 'live' | 'test', chainMode: 'embedded' | 'external'): FaucetOffReason | null {
  if (environment === 'live') return 'FAUCET_LIVE_ENVIRONMENT';
  if (chainMode === 'external') return 'FAUCET_EXTERNAL_CHAIN';
  return null;
}

export const FAUCET_OFF_DETAIL: Record<FaucetOffReason, string> = {
  FAUCET_LIVE_ENVIRONMENT: 'the faucet exists only on the test environment; this one is live (fund the wallet yourself)',
  FAUCET_EXTERNAL_CHAIN: 'the faucet exists only on the embedded test chain, where the service owns TestUSDC; this service runs on an external chain',
};

/** `whole` tokens in base units of a token with `decimals`. */
export const baseUnits = (whole: bigint, decimals: number): bigint => whole * 10n ** BigInt(decimals);
