/**
 * Fan-out: turns the outbox into deliveries. For every active endpoint, the events after its cursor that match its
 * filter (envelope `matches`: an agent's private events reach that agent's endpoints only) become pending deliveries,
 * due now, in the same transaction that moves the cursor past them. The cursor moves by compare-and-set, so when
 * several processes schedule at once each event is scheduled once; (endpoint, event) is unique besides. Outbox
 * sequences become visible in order (docs/events.md "The outbox"), so nothing behind a cursor can appear later.
 */
import { readEventsAfter } from '../events/outbox.ts';
import { randomUUID } from 'node:crypto';
import { matches, type EnvelopeSource } from '../../core/events/envelope.ts';
import type { WebhookDeps } from './deps.ts';

/** Events read per page of the outbox. */
const PAGE = 500;

export interface ScheduleResult {
  /** Deliveries created. */
  created: number;
  /** Active endpoints seen (0: nothing to dispatch until one is registered or enabled). */
  activeEndpoints: number;
}

/** One pass over the outbox. */
export async function scheduleDeliveries(deps: Pick<WebhookDeps, 'db' | 'clock'>): Promise<ScheduleResult> {
  const { db } = deps;
  const endpoints = (await db.selectFrom('webhook_endpoints').select(['id', 'agent_id', 'filter', 'cursor_seq']).where('status', '=', 'active').execute()).map((e) => ({
    ...e,
    cursor: BigInt(e.cursor_seq),
  }));
  if (endpoints.length === 0) return { created: 0, activeEndpoints: 0 };
  let created = 0;
  let from = endpoints.reduce((min, e) => (e.cursor < min ? e.cursor : min), endpoints[0]!.cursor);
  for (;;) {
    const page: EnvelopeSource[] = await readEventsAfter(db, from, PAGE);
    if (page.length === 0) break;
    const last = page.at(-1)!.seq;
    for (const endpoint of endpoints) {
      if (endpoint.cursor >= last) continue;
      const due = page.filter((e) => e.seq > endpoint.cursor && matches(e, endpoint.agent_id, endpoint.filter));
      const now = deps.clock.now();
      const moved = await db.transaction().execute(async (trx) => {
        const advanced = await trx
          .updateTable('webhook_endpoints')
          .set({ cursor_seq: last.toString() })
          .where('id', '=', endpoint.id)
          .where('cursor_seq', '=', endpoint.cursor.toString())
          .where('status', '=', 'active')
          .returning('id')
          .executeTakeFirst();
        if (!advanced || due.length === 0) return advanced ? 0 : null;
        const rows = await trx
          .insertInto('webhook_deliveries')
          .values(due.map((e) => ({ id: randomUUID(), endpoint_id: endpoint.id, event_seq: e.seq.toString(), status: 'pending' as const, next_attempt_at: now, created_at: now })))
          .onConflict((oc) => oc.columns(['endpoint_id', 'event_seq']).doNothing())
          .returning('id')
          .execute();
        return rows.length;
      });
      // null: another process moved this cursor first (or the endpoint was disabled meanwhile); the next pass rereads it.
      created += moved ?? 0;
      endpoint.cursor = last;
    }
    from = last;
    if (page.length < PAGE) break;
  }
  return { created, activeEndpoints: endpoints.length };
}
