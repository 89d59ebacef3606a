/** Deletes an endpoint and its delivery log (DELETE /webhooks/{id}): nothing more is sent to it, not even an attempt due now. */
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { ownedEndpoint, type WebhookDeps } from './deps.ts';

export type DeleteEndpointError = 'FORBIDDEN' | 'WEBHOOK_NOT_FOUND';

export async function deleteEndpoint(deps: WebhookDeps, agentId: string | null, id: string, recordEffect?: EffectRecorder): Promise<{ id: string; deleted: true }> {
  await deps.db.transaction().execute(async (trx) => {
    await ownedEndpoint(trx, agentId, id, true);
    await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
    await recordEffect?.(trx, id);
  });
  return { id, deleted: true };
}
