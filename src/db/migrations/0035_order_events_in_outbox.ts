// Migration 0035: an order event is stored once, as its execution:report in the outbox (issue 22). Every order event was
// written twice in its transaction, as a row of order_events (read by POST /orderbook/events) and as the outbox event
// that pushes it: about 35 rows a 15-order batch each, the first with three foreign keys checked per row (1.2 ms of a
// batch's 8.5 ms in the embedded database). Now the outbox row carries the event's place in its agent's sequence
// (events.agent_seq, unique per agent) and POST /orderbook/events reads it by that.
//
// The outbox rows get the bodies order_events kept, in the wire's units (wireEventOf): until 2026-11-24 the
// execution:report payloads carried the engine's units (priceBps, whole shares). Every order event has had its outbox
// row since both were made (one function writes both in one transaction); one without is refused, with the count.
//
// events_agent_id_seq_idx goes: nothing reads the outbox by agent (each transport reads it by seq and keeps an agent's
// private events for that agent), and it was one more index written with every event.
import { sql, type Kysely, type Migration } from 'kysely';
import { wireEventOf } from '../../core/orderbook/order-events.ts';

interface OrderEventRow {
  agent_id: string;
  seq: string;
  payload: unknown;
}

/** Order events rewritten per statement. */
const CHUNK = 5_000;

export const m0035_order_events_in_outbox: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE events ADD COLUMN agent_seq bigint NULL`.execute(db);
    await sql`UPDATE events SET agent_seq = (payload->>'seq')::bigint WHERE type = 'execution:report' AND agent_id IS NOT NULL`.execute(db);
    await sql`CREATE UNIQUE INDEX events_agent_seq_idx ON events (agent_id, agent_seq) WHERE agent_seq IS NOT NULL`.execute(db);

    let missing = 0;
    let after: OrderEventRow | null = null;
    for (;;) {
      const { rows }: { rows: OrderEventRow[] } = await sql<OrderEventRow>`
        SELECT agent_id::text, seq::text, payload FROM order_events
        WHERE ${after === null ? sql`true` : sql`(agent_id, seq) > (${after.agent_id}::uuid, ${after.seq}::bigint)`}
        ORDER BY agent_id, seq LIMIT ${CHUNK}`.execute(db);
      if (rows.length === 0) break;
      const wire = rows.map((r) => JSON.stringify(wireEventOf((typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown>)));
      const { rows: updated } = await sql<{ n: string }>`
        WITH u AS (
          UPDATE events x SET payload = v.payload::jsonb
          FROM unnest(${rows.map((r) => r.agent_id)}::text[], ${rows.map((r) => r.seq)}::text[], ${wire}::text[]) AS v (agent_id, seq, payload)
          WHERE x.agent_id = v.agent_id::uuid AND x.agent_seq = v.seq::bigint AND x.type = 'execution:report'
          RETURNING 1)
        SELECT count(*)::text AS n FROM u`.execute(db);
      missing += rows.length - Number(updated[0]!.n);
      after = rows[rows.length - 1]!;
    }
    if (missing > 0) throw new Error(`${missing} order event(s) have no execution:report in the outbox: they would be lost with order_events`);

    await sql`DROP INDEX events_agent_id_seq_idx`.execute(db);
    await sql`DROP TABLE order_events`.execute(db);
  },
};
