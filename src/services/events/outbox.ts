/**
 * The events outbox. `appendEvent` runs inside the caller's transaction, so a state change and the
 * event it causes commit together or not at all. Sequence numbers come from a single counter row
 * locked by the writer: global, strictly increasing and gap-free (a rollback burns nothing).
 */
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';

export interface NewEvent {
  type: string;
  chainId?: number | null;
  marketAddress?: string | null;
  /** Set for events private to one agent (e.g. execution:report); null for public events. */
  agentId?: string | null;
  payload: Record<string, unknown>;
}

export interface StoredEvent {
  seq: bigint;
  type: string;
  chainId: number | null;
  marketAddress: string | null;
  agentId: string | null;
  payload: Record<string, unknown>;
  createdAt: Date;
}

export async function appendEvent(trx: Transaction<DB>, clock: Clock, event: NewEvent): Promise<StoredEvent> {
  const counter = await trx
    .updateTable('event_sequence')
    .set({ last_seq: sql<string>`last_seq + 1` })
    .where('id', '=', 1)
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  const stored: StoredEvent = {
    seq: BigInt(counter.last_seq),
    type: event.type,
    chainId: event.chainId ?? null,
    marketAddress: event.marketAddress ?? null,
    agentId: event.agentId ?? null,
    payload: event.payload,
    createdAt: clock.now(),
  };
  await trx
    .insertInto('events')
    .values({
      seq: stored.seq.toString(),
      type: stored.type,
      chain_id: stored.chainId,
      market_address: stored.marketAddress,
      agent_id: stored.agentId,
      payload: JSON.stringify(stored.payload),
      created_at: stored.createdAt,
    })
    .execute();
  return stored;
}
