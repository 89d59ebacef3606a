/**
 * Lists the caller's orders (GET /orderbook/orders), newest first: the open ones and the recent ones, narrowed to a
 * market and a status, a page at a time. Each is the order as the order loop answers it, with its fills.
 */
import type { Principal } from '../../../core/principal.ts';
import { readFills, renderView } from './order-view.ts';
import { walletOf, type TraderError } from './trader.ts';
import type { OrderBookDeps, OrderView } from './types.ts';

export type ListOrdersDeps = Pick<OrderBookDeps, 'db' | 'chainId'>;
export interface ListOrdersParams {
  principal: Principal;
  /** Only this market's orders (its address, any case). */
  market?: string;
  /** Only orders with this status. */
  status?: OrderView['status'];
  /** The cursor of the prior page: only orders placed before the order it names. */
  before?: bigint;
  /** Orders per page. */
  limit: number;
}
export interface ListOrdersResult {
  orders: OrderView[];
  /** Pass back as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}
export type ListOrdersError = TraderError;

export async function listOrders(deps: ListOrdersDeps, { principal, market, status, before, limit }: ListOrdersParams): Promise<ListOrdersResult> {
  const { agentId, owner } = await walletOf(deps, principal);
  // The owner column is indexed; an agent's wallet never changes, so its orders are exactly its wallet's.
  let query = deps.db.selectFrom('orders').selectAll().where('owner', '=', owner).where('agent_id', '=', agentId).where('chain_id', '=', deps.chainId);
  if (market !== undefined) query = query.where('market', '=', market.toLowerCase());
  if (status !== undefined) query = query.where('status', '=', status);
  // seq is the placement order (time priority), so it pages newest first without skipping or repeating.
  if (before !== undefined) query = query.where('seq', '<', before.toString());
  const rows = await query.orderBy('seq', 'desc').limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  const fills = await readFills(deps.db, page.map((o) => o.id));
  return {
    orders: page.map((o) => renderView(o, fills.filter((f) => f.maker_order === o.id || f.taker_order === o.id))),
    nextCursor: rows.length > limit ? String(page[page.length - 1]!.seq) : null,
  };
}
