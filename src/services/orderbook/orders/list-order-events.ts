/**
 * Lists the caller's order events after a sequence number (POST /orderbook/events), oldest first: the source of
 * truth that execution:report pushes accelerate. Each is read from its execution:report in the outbox (the one place an
 * order event is stored), by its place in the agent's sequence. A fill event says whether its ledger batch is committed
 * on chain.
 */
import { sql } from 'kysely';
import type { Principal } from '../../../core/principal.ts';
import { batchHolding } from '../../ledger/batch-range.ts';
import { walletOf, type TraderError } from './trader.ts';
import type { OrderBookDeps, OrderEvent } from './types.ts';

export type ListOrderEventsDeps = Pick<OrderBookDeps, 'db'>;
export interface ListOrderEventsParams {
  principal: Principal;
  /** The last seq the caller has (0 for the start). */
  after: bigint;
  limit: number;
}
export interface ListOrderEventsResult {
  events: OrderEvent[];
  nextAfter: string;
  hasMore: boolean;
}
export type ListOrderEventsError = TraderError;

export async function listOrderEvents(deps: ListOrderEventsDeps, { principal, after, limit }: ListOrderEventsParams): Promise<ListOrderEventsResult> {
  const { agentId } = await walletOf(deps, principal);
  const rows = await deps.db
    .selectFrom('events as e')
    // A fill event's fill (its body names it) and the batch holding the ledger operation that settled it.
    .leftJoin('order_fills as f', (join) => join.on(sql<boolean>`f.id = (e.payload->>'fillId')::bigint`))
    .leftJoinLateral(batchHolding(deps.db, sql.ref('f.ledger_seq')), (join) => join.onTrue())
    .select(['e.agent_seq', 'e.payload', 'e.created_at', 'b.status as batch_status', 'b.nonce as batch_nonce'])
    .where('e.agent_id', '=', agentId)
    .where('e.agent_seq', '>', after.toString())
    .orderBy('e.agent_seq')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  return {
    events: page.map(eventOf),
    nextAfter: page.length > 0 ? String(page[page.length - 1]!.agent_seq) : after.toString(),
    hasMore: rows.length > limit,
  };
}

/** The event's body as pushed, with its time and, for a fill, whether it is final as of now. */
function eventOf(r: { payload: unknown; created_at: Date; batch_status: string | null; batch_nonce: string | null }): OrderEvent {
  const body = (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as OrderEvent;
  return body.type === 'fill' ? { ...body, final: r.batch_status === 'confirmed', batchNonce: r.batch_nonce === null ? null : String(r.batch_nonce), at: r.created_at.toISOString() } : { ...body, at: r.created_at.toISOString() };
}
