/**
 * One subscriber's stream of enveloped events (docs/events.md "Subscribe"): the outbox after `afterSeq` (a resume) or
 * from the head (new events only), filtered by kinds, markets or a market creator, with the subscriber's own private
 * events and nobody else's. WebSocket and SSE both read through it; `position` is the last sequence handled (events
 * filtered out advance it too), which is what a client resumes from.
 */
import type { Kysely } from 'kysely';
import { envelopeOf, matches, type EventEnvelope, type EventFilter } from '../../core/events/envelope.ts';
import type { DB } from '../../db/schema.ts';
import type { EventBus } from './bus.ts';
import type { StoredEvent } from './outbox.ts';

export interface EventStream {
  /** The last outbox sequence handled (delivered or filtered out). */
  position(): bigint;
  close(): void;
}

export interface OpenStreamOptions {
  /** The subscriber's agent (its private events); null without a key. */
  agentId: string | null;
  filter: EventFilter;
  /** Resume after this sequence; absent: from the current head. */
  afterSeq?: bigint;
}

// One envelope per stored event, shared by every subscriber that receives it (the bus hands them the same object from
// its ring), so a transport can serialize it once for all (docs/events.md "Several processes").
const envelopes = new WeakMap<StoredEvent, EventEnvelope>();
function envelopeOnce(e: StoredEvent): EventEnvelope {
  let env = envelopes.get(e);
  if (!env) envelopes.set(e, (env = envelopeOf(e)));
  return env;
}

export async function openEventStream(deps: { bus: EventBus; db: Kysely<DB> }, opts: OpenStreamOptions, onEvent: (e: EventEnvelope) => void | Promise<void>): Promise<EventStream> {
  const creator = opts.filter.creator?.toLowerCase();
  let creatorMarkets: Set<string> | undefined;
  if (creator) {
    const rows = await deps.db.selectFrom('markets').select('address').where('creator', '=', creator).execute();
    creatorMarkets = new Set(rows.map((r) => r.address));
  }
  const afterSeq = opts.afterSeq ?? (await deps.bus.head());
  const sub = deps.bus.subscribe(
    {
      afterSeq,
      filter: (e) => {
        // A market the creator makes while subscribed joins its set with its first event.
        if (creatorMarkets && e.type === 'market.live' && e.marketAddress && String(e.payload.creatorAddress ?? '').toLowerCase() === creator) creatorMarkets.add(e.marketAddress);
        return matches(e, opts.agentId, opts.filter, creatorMarkets);
      },
    },
    (e) => onEvent(envelopeOnce(e)),
  );
  return { position: () => sub.position, close: () => sub.close() };
}

export interface EventStreamService {
  /**
   * Heartbeat interval, the unsent buffer past which a slow subscriber is closed, and the keyless subscribers one client
   * address may hold at once (EVENTS_* settings).
   */
  readonly settings: { heartbeatMs: number; maxBufferedBytes: number; maxKeylessPerAddress: number };
  open(opts: OpenStreamOptions, onEvent: (e: EventEnvelope) => void | Promise<void>): Promise<EventStream>;
}

export function createEventStreamService(deps: { bus: EventBus; db: Kysely<DB>; settings: EventStreamService['settings'] }): EventStreamService {
  return { settings: deps.settings, open: (opts, onEvent) => openEventStream(deps, opts, onEvent) };
}
