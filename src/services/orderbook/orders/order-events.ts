/**
 * Order events (docs/orderbook.md "The order loop"): a transaction queues them as it goes and writes them all at
 * its very end, each in its agent's gap-free sequence, as execution:report events in the outbox: the one place an
 * order event is stored (migration 0035), read back by POST /orderbook/events. A body is made in the engine's units
 * (basis points, whole shares) and written in the wire's (docs/units.md, wireEventOf).
 */
import { sql, type Transaction } from 'kysely';
import { wireEventOf } from '../../../core/orderbook/order-events.ts';
import { runStep, runSteps, type Step } from '../../../db/pipeline.ts';
import { unnestRows } from '../../../db/unnest.ts';
import type { DB } from '../../../db/schema.ts';
import { appendEventsStep, type NewEvent, type StoredEvent } from '../../events/outbox.ts';
import type { OrderBookDeps } from './types.ts';

/** An order event waiting for the end of its transaction (writeEvents). */
export interface PendingEvent {
  agentId: string;
  orderId: string;
  type: string;
  /** In the engine's units; a fill's `fillId` and `ledgerSeq` may be filled in until the queue is written. */
  payload: Record<string, unknown>;
}

/** Queues an order event for the agent; the transaction writes its queue at the end (writeEvents). */
export function emit(queue: PendingEvent[], agentId: string, orderId: string, type: string, payload: Record<string, unknown>): void {
  queue.push({ agentId, orderId, type, payload });
}

/**
 * Writes a transaction's order events, each in its agent's gap-free sequence, as execution:report outbox events,
 * then `publicEvents` (the fills' market.trade) in the same append. The rows that serialise writers are locked last and in one order — the agents' cursors
 * sorted by agent id, then the outbox counter — so concurrent placements on different markets wait for each
 * other instead of deadlocking.
 */
export async function writeEvents(deps: Pick<OrderBookDeps, 'clock' | 'chainId'>, trx: Transaction<DB>, queue: readonly PendingEvent[], publicEvents: readonly NewEvent[] = []): Promise<void> {
  const cursors = eventCursors(trx, queue);
  if (!cursors) return;
  await runSteps(trx, eventWrites(deps, trx, queue, await runStep(trx, cursors), publicEvents));
}

/**
 * The first statement of writeEvents: advances each agent's event cursor past its events in the queue, the rows in
 * agent-id order (so the cursors are locked in that order); answers each agent's first seq. Null: no event.
 */
export function eventCursors(trx: Transaction<DB>, queue: readonly PendingEvent[]): Step<Map<string, bigint>> | null {
  if (queue.length === 0) return null;
  const counts = new Map<string, number>();
  for (const e of queue) counts.set(e.agentId, (counts.get(e.agentId) ?? 0) + 1);
  const query = sql`INSERT INTO order_event_cursors (agent_id, last_seq)
    SELECT u.agent_id::uuid, u.n::bigint FROM ${unnestRows('u', ['agent_id', 'n'], [...counts.keys()].sort().map((agentId) => [agentId, counts.get(agentId)!]))}
    ON CONFLICT (agent_id) DO UPDATE SET last_seq = order_event_cursors.last_seq + excluded.last_seq
    RETURNING agent_id, last_seq::text AS last_seq`.compile(trx);
  return {
    query,
    read: ({ rows }) => new Map((rows as { agent_id: string; last_seq: string }[]).map((r) => [r.agent_id, BigInt(r.last_seq) - BigInt(counts.get(r.agent_id)!) + 1n])),
  };
}

/**
 * The rest of writeEvents, from the first seq of each agent: the order events as execution:report outbox events, each
 * with its place in its agent's sequence (`agentSeq`), and `publicEvents` after them, in one append.
 * `published` is told the outbox events as written, once the append is answered.
 */
export function eventWrites(
  deps: Pick<OrderBookDeps, 'clock' | 'chainId'>,
  trx: Transaction<DB>,
  queue: readonly PendingEvent[],
  firstSeqs: ReadonlyMap<string, bigint>,
  publicEvents: readonly NewEvent[] = [],
  published?: (events: StoredEvent[]) => void,
): Step<unknown>[] {
  if (queue.length === 0) return [];
  const next = new Map(firstSeqs);
  const reports = queue.map((e): NewEvent => {
    const seq = next.get(e.agentId)!;
    next.set(e.agentId, seq + 1n);
    const body = { seq: seq.toString(), type: e.type, orderId: e.orderId, ...e.payload };
    return { type: 'execution:report', chainId: deps.chainId, agentId: e.agentId, agentSeq: seq, payload: wireEventOf(body) };
  });
  const outbox = appendEventsStep(trx, deps.clock, [...reports, ...publicEvents])!;
  return [
    {
      ...outbox,
      read: (result) => {
        const events = outbox.read(result);
        published?.(events);
        return events;
      },
    },
  ];
}
