// The order as the order loop answers it: its row and its fills, each fill from this order's side, in the wire's
// units (docs/units.md): the rows keep basis points and whole shares, the answer decimal prices and base units.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { MATCH_KIND_NAMES } from '../../../core/ledger/types.ts';
import type { Outcome } from '../../../core/orderbook/types.ts';
import { baseUnitsOfShares, priceOfBps } from '../../../core/orderbook/units.ts';
import type { DB, OrderFillsTable, OrdersTable } from '../../../db/schema.ts';
import { batchHolding } from '../../ledger/batch-range.ts';
import type { OrderView } from './types.ts';

/** A fill as an order's view shows it: the fill row with the status of the ledger batch holding it (null: none yet). */
export type ViewFill = Pick<Selectable<OrderFillsTable>, 'id' | 'maker_order' | 'taker_order' | 'kind' | 'side' | 'price_bps' | 'shares' | 'taker_fee' | 'ledger_seq' | 'created_at'> & {
  batch_nonce: string | null;
  batch_status: string | null;
};

/** The wire order: its row and its fills (oldest first), each from this order's side. */
export function renderView(o: Selectable<OrdersTable>, fills: readonly ViewFill[]): OrderView {
  // Only a resting order has anything left on the book (rows cancelled before this rule kept their remainder).
  const remaining = o.status === 'resting' ? BigInt(o.remaining) : 0n;
  const cancelled = BigInt(o.shares) - BigInt(o.filled) - remaining;
  return {
    id: o.id,
    market: o.market,
    marketId: String(o.market_id),
    outcome: o.outcome as Outcome,
    action: o.action,
    price: priceOfBps(o.price_bps),
    shares: baseUnitsOfShares(o.shares).toString(),
    filled: baseUnitsOfShares(o.filled).toString(),
    remaining: baseUnitsOfShares(remaining).toString(),
    cancelled: baseUnitsOfShares(cancelled).toString(),
    tif: o.tif,
    postOnly: o.post_only,
    status: o.status,
    reason: o.reason,
    // A sell reserves whole shares in the row; a buy, play-money base units already.
    reserved: (o.action === 'sell' ? baseUnitsOfShares(o.reserved) : BigInt(o.reserved)).toString(),
    createdAt: o.created_at.toISOString(),
    fills: fills.map((f) => renderFill(o.id, f)),
  };
}

function renderFill(orderId: string, f: ViewFill): OrderView['fills'][number] {
  const maker = f.maker_order === orderId;
  return {
    id: String(f.id),
    role: maker ? ('maker' as const) : ('taker' as const),
    counterpartyOrderId: maker ? f.taker_order : f.maker_order,
    kind: MATCH_KIND_NAMES[f.kind as 0 | 1 | 2 | 3],
    outcome: f.side as Outcome,
    price: priceOfBps(f.price_bps),
    shares: baseUnitsOfShares(f.shares).toString(),
    fee: maker ? '0' : String(f.taker_fee),
    ledgerSeq: String(f.ledger_seq),
    final: f.batch_status === 'confirmed',
    batchNonce: f.batch_nonce === null ? null : String(f.batch_nonce),
    at: f.created_at.toISOString(),
  };
}

/** The order as it stands in the database, with the batch status of each of its fills. */
export async function readView(executor: Kysely<DB> | Transaction<DB>, orderId: string): Promise<OrderView> {
  const o = await executor.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
  return renderView(o, await readFills(executor, [orderId]));
}

/** The fills of these orders (as maker or taker), oldest first, each with the status of the ledger batch holding it. */
export async function readFills(executor: Kysely<DB> | Transaction<DB>, orderIds: readonly string[]): Promise<ViewFill[]> {
  if (orderIds.length === 0) return [];
  return executor
    .selectFrom('order_fills as f')
    .leftJoinLateral(batchHolding(executor, sql.ref('f.ledger_seq')), (join) => join.onTrue())
    .select(['f.id', 'f.maker_order', 'f.taker_order', 'f.kind', 'f.side', 'f.price_bps', 'f.shares', 'f.taker_fee', 'f.ledger_seq', 'f.created_at', 'b.nonce as batch_nonce', 'b.status as batch_status'])
    .where((eb) => eb.or([eb('f.maker_order', 'in', orderIds), eb('f.taker_order', 'in', orderIds)]))
    .orderBy('f.id')
    .execute();
}
