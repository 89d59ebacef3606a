/**
 * The events outbox. `appendEvent` runs inside the caller's transaction, so a state change and the
 * event it causes commit together or not at all. Sequence numbers come from a single counter row
 * locked by the writer: global, strictly increasing and gap-free (a rollback burns nothing).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { EnvelopeSource } from '../../core/events/envelope.ts';
import { runStep, type Step } from '../../db/pipeline.ts';
import { unnestRows } from '../../db/unnest.ts';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';

/** The PostgreSQL channel a commit of events notifies. */
export const EVENTS_CHANNEL = 'svc_events';

export interface NewEvent {
  type: string;
  chainId?: number | null;
  marketAddress?: string | null;
  /** Set for events private to one agent (e.g. execution:report); null for public events. */
  agentId?: string | null;
  /** An order event's place in its agent's gap-free sequence (execution:report; POST /orderbook/events reads by it). */
  agentSeq?: bigint | null;
  payload: Record<string, unknown>;
}

/** An event as the outbox keeps it: what every transport envelopes (src/core/events/envelope.ts). */
export type StoredEvent = EnvelopeSource;

/** The events after `seq`, at most `limit`, in order (the bus's tail and the webhook scheduler read the same way). */
export async function readEventsAfter(db: Kysely<DB>, seq: bigint, limit: number): Promise<StoredEvent[]> {
  const rows = await db.selectFrom('events').selectAll().where('seq', '>', seq.toString()).orderBy('seq').limit(limit).execute();
  return rows.map((r) => ({
    seq: BigInt(r.seq),
    type: r.type,
    chainId: r.chain_id,
    marketAddress: r.market_address,
    agentId: r.agent_id,
    payload: r.payload as Record<string, unknown>,
    createdAt: r.created_at,
  }));
}

export async function appendEvent(trx: Transaction<DB>, clock: Clock, event: NewEvent): Promise<StoredEvent> {
  return (await appendEvents(trx, clock, [event]))[0]!;
}

/**
 * Appends several events in order with one counter update and one insert. The counter row is locked until
 * the transaction ends, so a writer that also locks other rows should append last (docs/events.md).
 */
export async function appendEvents(trx: Transaction<DB>, clock: Clock, events: readonly NewEvent[]): Promise<StoredEvent[]> {
  const step = appendEventsStep(trx, clock, events);
  return step ? runStep(trx, step) : [];
}

/** The statement of appendEvents (null: no event), for a caller that sends it with others (src/db/pipeline.ts). */
export function appendEventsStep(trx: Transaction<DB>, clock: Clock, events: readonly NewEvent[]): Step<StoredEvent[]> | null {
  if (events.length === 0) return null;
  const createdAt = clock.now();
  // One statement: the counter moved by the count, the rows numbered from it, and the NOTIFY delivered at commit to
  // every process LISTENing (docs/events.md "Several processes"; a rollback sends nothing).
  const n = events.length;
  const texts = events.map((e) => JSON.stringify(e.payload));
  const cells = events.map((e, i) => [i + 1, e.type, e.chainId ?? null, e.marketAddress ?? null, e.agentId ?? null, e.agentSeq ?? null, texts[i]!]);
  const query = sql`
    WITH c AS (UPDATE event_sequence SET last_seq = last_seq + ${n}::bigint WHERE id = 1 RETURNING last_seq),
    i AS (
      INSERT INTO events (seq, type, chain_id, market_address, agent_id, agent_seq, payload, created_at)
      SELECT c.last_seq - ${n}::bigint + v.ord::bigint, v.type, v.chain_id::int, v.market_address, v.agent_id::uuid, v.agent_seq::bigint, v.payload::json, ${createdAt}::timestamptz
        FROM c, ${unnestRows('v', ['ord', 'type', 'chain_id', 'market_address', 'agent_id', 'agent_seq', 'payload'], cells)})
    SELECT c.last_seq::text AS last_seq, pg_notify(${EVENTS_CHANNEL}, c.last_seq::text) FROM c`.compile(trx);
  return {
    query,
    read: ({ rows }) => {
      const last = rows[0] as { last_seq: string } | undefined;
      if (!last) throw new Error('event_sequence has no row 1');
      const first = BigInt(last.last_seq) - BigInt(n) + 1n;
      return events.map((event, i) => ({
        seq: first + BigInt(i),
        type: event.type,
        chainId: event.chainId ?? null,
        marketAddress: event.marketAddress ?? null,
        agentId: event.agentId ?? null,
        // As a read of the row gives it (the json column keeps the text written): no `undefined`, Dates as their text.
        payload: JSON.parse(texts[i]!) as StoredEvent['payload'],
        createdAt,
      }));
    },
  };
}
