// The indexer's interface and options (createMarketIndexer in ../indexer.ts wires the steps of this folder).
import type { Address, PublicClient } from 'viem';
import type { Kysely } from 'kysely';
import type { CollateralSymbol, MarketsLane } from '../../../chain/markets-lane.ts';
import type { Clock } from '../../../core/clock.ts';
import type { Logger } from '../../../core/logger.ts';
import type { DB } from '../../../db/schema.ts';
import type { ProjectionT } from '../../../wire/markets.ts';
import type { EventBus } from '../../events/bus.ts';
import type { EndedMarketsListener } from '../ended-markets.ts';

export interface MarketIndexer {
  /** Runs batches until the cursor reaches the head it saw when called. */
  syncNow(): Promise<void>;
  /** Asks the polling loop for a batch soon (after a transaction the service knows about). */
  kick(): void;
  start(): void;
  stop(): Promise<void>;
  projection(): Promise<ProjectionT>;
}

export interface IndexerOptions {
  db: Kysely<DB>;
  client: PublicClient;
  chainId: number;
  lane: MarketsLane;
  /** The block the lane's first contract was deployed in: nothing of ours is older. */
  fromBlock: bigint;
  collateral: readonly { symbol: CollateralSymbol; token: Address }[];
  events: EventBus;
  clock: Clock;
  log: Logger;
  pollMs?: number;
  batchBlocks?: number;
  /** Blocks a log's block needs on top of it (itself included) before it is indexed; default 1 (docs/chain.md "Confirmation depth"). */
  confirmations?: number;
  /** A cursor more than this behind the head is reported unhealthy. */
  maxHealthyLagSeconds?: number;
  /** Told about every market the indexer voids (the runtime wires the order service). */
  onMarketsVoided?: EndedMarketsListener;
  /** Told about every open market a resolution step stops (a proposal before close time): its resting orders end. */
  onMarketsStopped?: EndedMarketsListener;
}
