// What the faucet's operations need: the relayer (the operator sends every transfer and pays its gas), the collateral
// tokens (their addresses and decimals), the rate-limit store (one grant per wallet and per key a window) and whether
// the faucet exists here at all.
import type { Kysely } from 'kysely';
import type { Relayer } from '../../chain/relayer.ts';
import type { Clock } from '../../core/clock.ts';
import type { FaucetAsset, FaucetOffReason } from '../../core/faucet.ts';
import type { DB } from '../../db/schema.ts';
import type { CollateralToken } from '../chain/chain-service.ts';
import type { RateLimitStore } from '../rate-limit/store.ts';

export interface FaucetDeps {
  db: Kysely<DB>;
  relayer: Pick<Relayer, 'submit' | 'get' | 'waitFor'>;
  chainId: number;
  /** USDC (TestUSDC, which the operator owns and mints) and PM (paid from the operator's supply). */
  collateral: readonly CollateralToken[];
  rateLimits: RateLimitStore;
  clock: Clock;
  /** Runs a chain call, turning an unreachable node into 503 SERVICE_UNAVAILABLE (ChainService.guard). */
  guard: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Null on the embedded test environment; otherwise why there is no faucet (core/faucet.ts). */
  off: FaucetOffReason | null;
}

/** One transfer of a grant, as the chain confirmed it. Amounts in base units. */
export interface FaucetTransfer {
  asset: FaucetAsset;
  /** The ERC-20 token; null for ETH. */
  token: string | null;
  decimals: number;
  amount: bigint;
  txHash: string;
  blockNumber: bigint;
}

/** A grant paid in full: every transfer confirmed. */
export interface FaucetGrant {
  id: string;
  chainId: number;
  wallet: string;
  createdAt: Date;
  /** When the wallet (and the key that asked) may ask again. */
  nextGrantAt: Date;
  transfers: FaucetTransfer[];
}
