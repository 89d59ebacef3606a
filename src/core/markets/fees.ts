/**
 * The two-lane fee schedule (GET /discover/fees) and the creation economics the factories enforce.
 * The deployer writes these values into the factories, so what is published is what is enforced.
 * Rates are basis points (1 bps = 0.01 %); amounts are base units of the named token.
 */

export interface CollateralCreationTerms {
  /** Smallest liquidity parameter b accepted, in the collateral's base units. */
  minLiquidity: bigint;
}

export const LMSR_FEES = {
  /** Charged on every trade, on top of a buy's cost and out of a sell's proceeds. */
  protocolFeeBps: 100,
  /** The creator chooses within [min, max]; accrues in the market as the creator's marketBalance. */
  creatorFeeBpsDefault: 100,
  creatorFeeBpsMin: 0,
  creatorFeeBpsMax: 300,
} as const;

export const ORDERBOOK_FEES = {
  takerFeeBps: 50,
  makerFeeBps: 0,
  /** Price tick in basis points of one collateral unit. */
  tickBps: 100,
  /** Smallest order, in whole shares. */
  minShares: 1,
} as const;

/** Creation bond in PM base units (18 decimals): 100 PM, returned or slashed at resolution. */
export const CREATION_BOND_PM = 100n * 10n ** 18n;

/** b floors: 100 USDC (6 decimals) and 100 PM (18 decimals). */
export const MIN_LIQUIDITY: Record<'USDC' | 'PM', bigint> = {
  USDC: 100n * 10n ** 6n,
  PM: 100n * 10n ** 18n,
};

/** Live (open or closed, not yet resolved) markets one creator may have at once. */
export const MAX_LIVE_MARKETS_PER_CREATOR = 20;

/** Bounds on a market's close time, from the moment of proposal. */
export const CLOSE_TIME_MIN_MS = 60 * 60 * 1000;
export const CLOSE_TIME_MAX_MS = 365 * 24 * 60 * 60 * 1000;

/** How long after close the creator may propose an outcome; past it the crowd backstop takes over. */
export const RESOLUTION_WINDOW_SECONDS = 72 * 60 * 60;
/** The spec's challenge window: 2 hours after the resolution (proposal) time. */
export const CHALLENGE_WINDOW_SECONDS = 2 * 60 * 60;

/** Seconds a resolution vote round runs (the resolver's floor off local chains is the same 24 hours). */
export const VOTE_WINDOW_SECONDS = 24 * 60 * 60;
/** Split of a slashed creation bond (spec: keeper / voter / treasury). */
export const BOND_SLASH_SPLIT = { keeper: 5, voters: 20, treasury: 75 } as const;
