/**
 * Replays a delivery (POST /webhooks/{id}/deliveries/{deliveryId}/replay): whatever its status, it becomes pending and
 * due now with a fresh retry schedule, and is sent again with the same webhook-id (receivers dedupe by it) and the
 * current secrets. A disabled endpoint is enabled first (PATCH status active).
 */
import { problem } from '../../core/error-codes.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { ownedEndpoint, type WebhookDeliveryView, type WebhookDeps } from './deps.ts';
import { deliveryOf, notFound } from './deliveries.ts';

export type ReplayDeliveryError = 'FORBIDDEN' | 'WEBHOOK_NOT_FOUND' | 'WEBHOOK_DELIVERY_NOT_FOUND' | 'WEBHOOK_DISABLED';

export async function replayDelivery(deps: WebhookDeps, agentId: string | null, endpointId: string, deliveryId: string, recordEffect?: EffectRecorder): Promise<WebhookDeliveryView> {
  const now = deps.clock.now();
  const view = await deps.db.transaction().execute(async (trx) => {
    const endpoint = await ownedEndpoint(trx, agentId, endpointId, true);
    if (endpoint.status !== 'active') {
      throw problem('WEBHOOK_DISABLED', `webhook endpoint ${endpointId} is disabled (${endpoint.disabled_reason}); enable it with PATCH /webhooks/${endpointId} {"status":"active"}, then replay`);
    }
    const replayed = await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: now, delivered_at: null })
      .where('id', '=', deliveryId)
      .where('endpoint_id', '=', endpointId)
      .returning('id')
      .executeTakeFirst();
    if (!replayed) throw notFound(endpointId, deliveryId);
    await recordEffect?.(trx, deliveryId);
    return deliveryOf(trx, endpointId, deliveryId);
  });
  deps.nudge?.();
  return view;
}
