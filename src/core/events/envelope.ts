/**
 * The envelope every transport (WebSocket, SSE, webhooks) delivers an outbox event in (docs/events.md "Envelope").
 * The spec's required fields — type, id, timestamp, chainId, marketAddress — plus the outbox `sequence` a client
 * resumes from, whether it is `private` to the receiving agent, and the kind's own fields in `data` (nested, as the
 * Standard Webhooks payload has it, so a kind's field never collides with the envelope's). `id` is stable per event:
 * a client dedupes by it. Pure.
 */

export interface EnvelopeSource {
  seq: bigint;
  type: string;
  chainId: number | null;
  marketAddress: string | null;
  agentId: string | null;
  payload: Record<string, unknown>;
  createdAt: Date;
}

export interface EventEnvelope {
  id: string;
  type: string;
  /** The outbox sequence, a decimal string: global, strictly increasing, gap-free. */
  sequence: string;
  timestamp: string;
  chainId: number | null;
  marketAddress: string | null;
  /** True for an event only the agent it belongs to receives (execution:report, negotiation.countered). */
  private: boolean;
  data: Record<string, unknown>;
}

export const eventId = (seq: bigint): string => `evt_${seq}`;

export function envelopeOf(e: EnvelopeSource): EventEnvelope {
  return {
    id: eventId(e.seq),
    type: e.type,
    sequence: e.seq.toString(),
    timestamp: e.createdAt.toISOString(),
    chainId: e.chainId,
    marketAddress: e.marketAddress,
    private: e.agentId !== null,
    data: e.payload,
  };
}

/** What a subscriber asks for: kinds (exact, or a `prefix.*`), markets, a market creator; private events are the agent's own. */
export interface EventFilter {
  kinds?: readonly string[];
  markets?: readonly string[];
  /** Only events of markets this wallet created (the transport resolves it to markets). */
  creator?: string;
  /** Include the subscriber's own private events (default true with a key). */
  includePrivate?: boolean;
}

/** Whether `e` goes to a subscriber of `agentId` (null: no key) with `filter`. Private events never reach anyone else. */
export function matches(e: EnvelopeSource, agentId: string | null, filter: EventFilter, creatorMarkets?: ReadonlySet<string>): boolean {
  if (e.agentId !== null && (e.agentId !== agentId || filter.includePrivate === false)) return false;
  if (filter.kinds && filter.kinds.length > 0 && !filter.kinds.some((k) => (k.endsWith('.*') ? e.type.startsWith(k.slice(0, -1)) : e.type === k))) return false;
  if (filter.markets && filter.markets.length > 0 && (e.marketAddress === null || !filter.markets.includes(e.marketAddress))) return false;
  if (creatorMarkets && (e.marketAddress === null || !creatorMarkets.has(e.marketAddress))) return false;
  return true;
}
