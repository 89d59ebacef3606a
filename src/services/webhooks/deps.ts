/**
 * What every webhook operation shares (docs/events.md "Webhooks"): its dependencies, the views it answers with, and
 * the lookup of an endpoint that belongs to the calling agent (another agent's endpoint is as absent as a deleted one).
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { eventId } from '../../core/events/envelope.ts';
import type { Logger } from '../../core/logger.ts';
import type { SecretBox } from '../../core/webhooks/secret-box.ts';
import type { DB, WebhookDeliveriesTable, WebhookDeliveryStatus, WebhookDisabledReason, WebhookEndpointsTable, WebhookEndpointStatus } from '../../db/schema.ts';
import type { TargetPolicy } from './target.ts';

export interface WebhookDeps {
  db: Kysely<DB>;
  clock: Clock;
  log: Logger;
  /** Seals and opens signing secrets (WEBHOOK_SECRET_KEY or the operator key). */
  secrets: SecretBox;
  /** Which target URLs are allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS, the service's own origins). */
  targets: TargetPolicy;
  /**
   * Called after an endpoint was registered or changed, or a delivery replayed: the dispatcher looks at the endpoints
   * again (it skips its passes while none is active) and sends what became due without waiting for its timer.
   */
  nudge?: () => void;
}

/** What an endpoint receives: kinds (exact or a prefix ending in .*), markets (lowercase), and its agent's private events unless false. */
export interface WebhookFilter {
  kinds?: string[];
  markets?: string[];
  includePrivate?: boolean;
}

export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string | null;
  filter: WebhookFilter;
  status: WebhookEndpointStatus;
  disabledReason: WebhookDisabledReason | null;
  /** The last outbox sequence scheduled for this endpoint: every matching event after it will be delivered. */
  cursorSequence: string;
  /** Set while a rotated-out secret still signs alongside the current one. */
  previousSecretExpiresAt: string | null;
  /** Since when every attempt has failed (null while deliveries succeed); 5 days of it disable the endpoint. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  /** The envelope id, sent as webhook-id (the same on every attempt and replay). */
  eventId: string;
  eventSequence: string;
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function endpointView(row: EndpointRow, now: Date): WebhookEndpointView {
  const overlapping = row.previous_secret_sealed !== null && row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    filter: row.filter,
    status: row.status,
    disabledReason: row.disabled_reason,
    cursorSequence: row.cursor_seq,
    previousSecretExpiresAt: overlapping ? row.previous_secret_expires_at!.toISOString() : null,
    failingSince: iso(row.failing_since),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function deliveryView(row: DeliveryRow & { event_type: string }): WebhookDeliveryView {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: eventId(BigInt(row.event_seq)),
    eventSequence: row.event_seq,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: iso(row.next_attempt_at),
    lastAttemptAt: iso(row.last_attempt_at),
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    deliveredAt: iso(row.delivered_at),
  };
}

/** The calling agent's id; an operator key (no agent) cannot own endpoints. */
export function agentOf(agentId: string | null): string {
  if (agentId === null) throw problem('FORBIDDEN', 'webhook endpoints belong to an agent and this API key belongs to none (an operator key); use an agent key');
  return agentId;
}

/** The endpoint `id` of `agentId`, locked for update when read in a transaction; WEBHOOK_NOT_FOUND otherwise. */
export async function ownedEndpoint(db: Kysely<DB> | Transaction<DB>, agentId: string | null, id: string, lock = false): Promise<EndpointRow> {
  const owner = agentOf(agentId);
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).where('agent_id', '=', owner);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw problem('WEBHOOK_NOT_FOUND', `no webhook endpoint ${id} of this agent; list yours with GET /webhooks`);
  return row;
}

/** Marks the endpoint's pending deliveries abandoned (it was disabled): they stay in its log and can be replayed. */
export async function abandonPending(trx: Transaction<DB>, endpointId: string): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'abandoned', next_attempt_at: null })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}
