// How the services that end markets (the indexer voiding a reorged creation, the lifecycle closing a market at its
// close time) tell the ones that keep state per market (the order service: resting orders, in-memory books).
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** A market that stopped trading; `ledgerMarketId` is set for ORDERBOOK markets. */
export interface EndedMarket {
  address: string;
  ledgerMarketId: bigint | null;
}

/** Reacts to markets that end, in two steps around the transaction that ends them. */
export interface EndedMarketsListener {
  /** Inside that transaction: writes that must commit (or roll back) together with the state change. */
  ending(trx: Transaction<DB>, markets: readonly EndedMarket[]): Promise<void>;
  /** After it committed: drop in-memory state of the markets. */
  ended(markets: readonly EndedMarket[]): void;
}
