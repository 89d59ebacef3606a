// What the indexer's steps read: the options resolved once, and the head the last batch saw.
import type { Address, PublicClient } from 'viem';
import type { Kysely } from 'kysely';
import type { CollateralSymbol } from '../../../chain/markets-lane.ts';
import type { Clock } from '../../../core/clock.ts';
import type { Logger } from '../../../core/logger.ts';
import type { DB } from '../../../db/schema.ts';
import type { EventBus } from '../../events/bus.ts';
import type { EndedMarketsListener } from '../ended-markets.ts';
import type { IndexerOptions } from './types.ts';

/** The lane's contracts whose logs count, lowercase. */
export interface IndexedLane {
  /** The automated-market factories (binary, ternary). */
  factories: ReadonlySet<string>;
  outcomeToken: string;
  orderbookFactory: Address;
  /** The MarketResolver whose logs resolve our markets (indexer/resolutions.ts). */
  resolver: Address;
  /** Collateral symbol by lowercase token address; a creation in any other token is skipped. */
  symbolOf: ReadonlyMap<string, CollateralSymbol>;
}

export interface IndexerDeps {
  db: Kysely<DB>;
  client: PublicClient;
  chainId: number;
  clock: Clock;
  log: Logger;
  events: EventBus;
  fromBlock: bigint;
  batchBlocks: bigint;
  /** Blocks a block needs (itself included) before its logs are indexed. */
  confirmations: bigint;
  lane: IndexedLane;
  onMarketsVoided?: EndedMarketsListener;
  onMarketsStopped?: EndedMarketsListener;
}

/** The head as the last batch saw it, and whether the last run succeeded (projection freshness reads it). */
export interface HeadSeen {
  at: Date;
  ok: boolean;
  headNumber: bigint;
  headTime: number;
}

/** Written by the batches, read by the projection status. */
export interface IndexerStatus {
  last: HeadSeen | null;
}

export function indexerDeps(o: IndexerOptions): IndexerDeps {
  const { db, client, chainId, clock, log, events, fromBlock, lane, onMarketsVoided, onMarketsStopped } = o;
  return {
    db,
    client,
    chainId,
    clock,
    log,
    events,
    fromBlock,
    batchBlocks: BigInt(o.batchBlocks ?? 2_000),
    confirmations: BigInt(o.confirmations ?? 1),
    lane: {
      factories: new Set([lane.factories.binary, lane.factories.ternary].map((a) => a.toLowerCase())),
      outcomeToken: lane.outcomeToken.toLowerCase(),
      orderbookFactory: lane.orderbookFactory,
      resolver: lane.resolver,
      symbolOf: new Map(o.collateral.map((c) => [c.token.toLowerCase(), c.symbol])),
    },
    onMarketsVoided,
    onMarketsStopped,
  };
}
