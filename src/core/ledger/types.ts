/**
 * The play-money ledger's vocabulary (spec "Ledger contract"): accounts, asset ids and the two kinds
 * of operation a batch commits — credits and matches — exactly as the LedgerCommitment contract's
 * structs carry them. Pure: no I/O. docs/ledger.md gives the balance rules of each operation.
 */

/** A lowercase 0x-prefixed 20-byte address. The zero address is the supply account. */
export type Account = `0x${string}`;

export const SUPPLY_ACCOUNT: Account = '0x0000000000000000000000000000000000000000';

/** Asset 0: the play-money collateral, in base units (6 decimals: 1_000_000 = one play dollar). */
export const COLLATERAL_ASSET = 0n;
export const COLLATERAL_DECIMALS = 6;
/** What one outcome share pays when its side wins, in collateral base units. */
export const SHARE_VALUE = 1_000_000n;
/** Prices are in basis points of SHARE_VALUE: 1..9999 bps; one bps is SHARE_VALUE / 10_000 = 100 base units per share. */
export const BPS = 10_000n;

/** Largest market id: asset ids are (marketId << 8) | side in a uint256, market ids are uint64 on chain. */
export const MAX_MARKET_ID = (1n << 64n) - 1n;

/** The asset id of one outcome of one market: (marketId << 8) | side. marketId ≥ 1, side 0 or 1. */
export function outcomeAsset(marketId: bigint, side: 0 | 1): bigint {
  if (marketId < 1n || marketId > MAX_MARKET_ID) throw new RangeError(`marketId ${marketId} is outside 1..2^64-1`);
  return (marketId << 8n) | BigInt(side);
}

/** Inverse of outcomeAsset; null for asset 0 (collateral) or an id that is no outcome. */
export function parseAsset(id: bigint): { marketId: bigint; side: 0 | 1 } | null {
  if (id === COLLATERAL_ASSET) return null;
  const side = id & 0xffn;
  const marketId = id >> 8n;
  if (side > 1n || marketId < 1n || marketId > MAX_MARKET_ID) return null;
  return { marketId, side: Number(side) as 0 | 1 };
}

/** Why a credit was made (uint8 on chain). docs/ledger.md "Credits". */
export const CREDIT_REASONS = {
  /** Play money granted when a wallet is first bound to an agent. */
  SIGNUP_GRANT: 1,
  /** Play money that came with a purchased fill pack. */
  FILL_PACK: 2,
  /** A resolved market pays its winning shares (collateral in) or retires its shares (outcome out). */
  PAYOUT: 3,
  /** An operator correction (e.g. a refund of a voided market). */
  ADJUSTMENT: 4,
} as const;
export type CreditReason = (typeof CREDIT_REASONS)[keyof typeof CREDIT_REASONS];

/**
 * A credit moves `delta` of asset `id` between `account` and the supply account: the account gains
 * delta, the supply loses it (a negative delta is a debit). int128 on chain.
 */
export interface Credit {
  account: Account;
  id: bigint;
  delta: bigint;
  reason: CreditReason;
}

/** How a match settles (uint8 on chain). docs/ledger.md "Matches". */
export const MATCH_KINDS = {
  /** The maker sells existing shares of `side` to the taker, who pays collateral. */
  TRANSFER: 0,
  /** The maker buys `side` and the taker buys the other side: a complete set is minted from collateral. */
  MINT: 1,
  /** The maker sells `side` and the taker sells the other side: a complete set is merged back to collateral. */
  MERGE: 2,
  /** The taker sells existing shares of `side` to the maker, who pays collateral (a sell arriving on a resting buy). */
  TAKER_SELLS: 3,
} as const;
export type MatchKind = (typeof MATCH_KINDS)[keyof typeof MATCH_KINDS];
/** The name of each match kind, indexed by its number. */
export const MATCH_KIND_NAMES = ['TRANSFER', 'MINT', 'MERGE', 'TAKER_SELLS'] as const satisfies Record<MatchKind, keyof typeof MATCH_KINDS>;

/**
 * One fill between two accounts on one binary market. `priceBps` is the maker's price of `side`
 * (1..9999); `shares` are whole shares (uint128); `fee` is collateral base units the taker pays to
 * the fee account (uint128).
 */
export interface Match {
  maker: Account;
  taker: Account;
  marketId: bigint;
  side: 0 | 1;
  kind: MatchKind;
  shares: bigint;
  priceBps: number;
  fee: bigint;
}

export type LedgerOperation = { type: 'credit'; credit: Credit } | { type: 'match'; match: Match };

/** One (account, asset) balance: int256, never negative for an account other than the supply account. */
export interface BalanceEntry {
  account: Account;
  assetId: bigint;
  balance: bigint;
}
