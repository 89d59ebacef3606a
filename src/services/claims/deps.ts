// What the claim operations need: the projection (which markets a wallet may be owed by), the chain (every amount),
// the relayer (the protocol sends the redemptions and pays the gas) and the projection's freshness to report.
import type { Kysely } from 'kysely';
import type { Address, PublicClient } from 'viem';
import type { Relayer } from '../../chain/relayer.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { DB } from '../../db/schema.ts';
import type { ProjectionT } from '../../wire/markets.ts';
import type { CollateralToken } from '../chain/chain-service.ts';
import type { LedgerService } from '../ledger/ledger.ts';

export interface ClaimDeps {
  db: Kysely<DB>;
  client: PublicClient;
  chainId: number;
  outcomeToken: Address;
  /** The MarketResolver: it holds challenge bonds. */
  resolver: Address;
  payoutRouter: Address;
  relayer: Pick<Relayer, 'address' | 'send' | 'get' | 'waitFor'>;
  /** Runs a chain read, turning an unreachable node into 503 SERVICE_UNAVAILABLE (ChainService.guard). */
  guard: <T>(fn: () => Promise<T>) => Promise<T>;
  clock: Clock;
  log: Logger;
  /** The play-money ledger: order-book payouts are PAYOUT credits. */
  ledger: Pick<LedgerService, 'submit'>;
  /** The collateral tokens (symbol, decimals) amounts are totalled in. */
  collateral: readonly CollateralToken[];
  /** The indexer's freshness, reported with every answer (a stale projection may miss a market, never an amount). */
  projection: () => Promise<ProjectionT>;
}
