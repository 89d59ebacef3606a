/**
 * Cancels every resting order of markets that ended, inside the transaction that ends them (the indexer voiding
 * them, the lifecycle closing them). The books in memory are dropped after it commits (forgetBooks).
 */
import type { Transaction } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { EndedMarket } from '../../markets/ended-markets.ts';
import { writeEvents, type PendingEvent } from './order-events.ts';
import type { MarketEndReason, OrderBookDeps } from './types.ts';
import { CANCEL_COLUMNS, writeCancelled } from './write-cancelled.ts';

export type CancelMarketOrdersDeps = Pick<OrderBookDeps, 'clock' | 'chainId'>;
export interface CancelMarketOrdersParams {
  /** The transaction that ends the markets. */
  trx: Transaction<DB>;
  markets: readonly EndedMarket[];
  reason: MarketEndReason;
}
/** How many orders were cancelled. */
export type CancelMarketOrdersResult = number;

/**
 * Cancels each resting order with `reason`, releasing its reservation, with a `cancelled` order event and
 * execution:report for its owner. Fills already settled stay in the ledger.
 */
export async function cancelMarketOrders(deps: CancelMarketOrdersDeps, { trx, markets, reason }: CancelMarketOrdersParams): Promise<CancelMarketOrdersResult> {
  const ids = markets.flatMap((m) => (m.ledgerMarketId === null ? [] : [m.ledgerMarketId.toString()]));
  if (ids.length === 0) return 0;
  const resting = await trx
    .selectFrom('orders')
    .select([...CANCEL_COLUMNS, 'remaining'])
    .where('chain_id', '=', deps.chainId)
    .where('market_id', 'in', ids)
    .where('status', '=', 'resting')
    .orderBy('seq')
    .forUpdate()
    .execute();
  const queue: PendingEvent[] = [];
  await writeCancelled(
    deps,
    trx,
    queue,
    resting.map((r) => ({ ...r, cancelled: BigInt(r.remaining) })),
    reason,
  );
  await writeEvents(deps, trx, queue);
  return resting.length;
}
