// What the economy's operations need (docs/economy.md): the sale contract and the tokens, the relayer that submits the
// buyer's permit purchase and the card deliveries (the operator pays the gas), the node for reads, the card provider
// (null where none is configured) and the terms.
import type { Kysely } from 'kysely';
import type { Address, PublicClient } from 'viem';
import type { Relayer } from '../../chain/relayer.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { DB } from '../../db/schema.ts';
import type { PaymentProvider } from '../payments/provider.ts';

export interface EconomyTerms {
  /** USDC base units for one whole PM (the sale contract's price; the card price is the same). */
  priceUsdcPerPm: bigint;
  bundlesUsd: readonly number[];
  cap: { usd: number; hours: number };
  relayMinPayment: bigint;
}

export interface EconomyDeps {
  db: Kysely<DB>;
  client: PublicClient;
  relayer: Pick<Relayer, 'address' | 'send' | 'get'>;
  chainId: number;
  clock: Clock;
  log: Logger;
  /** PmSale; null where it is not deployed (a process that cannot deploy and found none). */
  sale: Address | null;
  tokens: { PM: Address; USDC: Address };
  provider: PaymentProvider | null;
  terms: EconomyTerms;
  /** Runs a chain call, turning an unreachable node into 503 SERVICE_UNAVAILABLE (ChainService.guard). */
  guard: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Where the provider sends the buyer back: {sessionId} is filled in by the provider's template. */
  returnUrls: { success: string; cancel: string };
}
