/**
 * An endpoint's delivery log (GET /webhooks/{id}/deliveries): newest event first, each delivery with its status,
 * attempts, next attempt and the last answer or error; paged by the event sequence (cursor = the last item's
 * eventSequence), optionally only one status.
 */
import { problem } from '../../core/error-codes.ts';
import type { Kysely, Transaction } from 'kysely';
import type { DB, WebhookDeliveryStatus } from '../../db/schema.ts';
import { deliveryView, ownedEndpoint, type WebhookDeliveryView, type WebhookDeps } from './deps.ts';

export interface ListDeliveriesInput {
  limit: number;
  /** eventSequence of the last delivery of the previous page. */
  cursor?: string;
  status?: WebhookDeliveryStatus;
}

export interface DeliveryPage {
  deliveries: WebhookDeliveryView[];
  /** Pass as cursor for the next page; null on the last. */
  nextCursor: string | null;
}

export type ListDeliveriesError = 'FORBIDDEN' | 'WEBHOOK_NOT_FOUND';

const withEventType = (db: Kysely<DB> | Transaction<DB>) =>
  db.selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.seq', 'd.event_seq').selectAll('d').select('e.type as event_type');

export async function listDeliveries(deps: WebhookDeps, agentId: string | null, endpointId: string, input: ListDeliveriesInput): Promise<DeliveryPage> {
  await ownedEndpoint(deps.db, agentId, endpointId);
  let query = withEventType(deps.db).where('d.endpoint_id', '=', endpointId);
  if (input.cursor !== undefined) query = query.where('d.event_seq', '<', input.cursor);
  if (input.status !== undefined) query = query.where('d.status', '=', input.status);
  const rows = await query.orderBy('d.event_seq', 'desc').limit(input.limit + 1).execute();
  const page = rows.slice(0, input.limit).map(deliveryView);
  return { deliveries: page, nextCursor: rows.length > input.limit ? page.at(-1)!.eventSequence : null };
}

/** One delivery of the calling agent's endpoint; WEBHOOK_DELIVERY_NOT_FOUND otherwise. */
export async function getDelivery(deps: WebhookDeps, agentId: string | null, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
  await ownedEndpoint(deps.db, agentId, endpointId);
  return deliveryOf(deps.db, endpointId, deliveryId);
}

/** A delivery of `endpointId` as its log shows it; WEBHOOK_DELIVERY_NOT_FOUND when the endpoint has none of that id. */
export async function deliveryOf(db: Kysely<DB> | Transaction<DB>, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
  const row = await withEventType(db).where('d.endpoint_id', '=', endpointId).where('d.id', '=', deliveryId).executeTakeFirst();
  if (!row) throw notFound(endpointId, deliveryId);
  return deliveryView(row);
}

export const notFound = (endpointId: string, deliveryId: string) =>
  problem('WEBHOOK_DELIVERY_NOT_FOUND', `no delivery ${deliveryId} of webhook endpoint ${endpointId}; list them with GET /webhooks/${endpointId}/deliveries`);
