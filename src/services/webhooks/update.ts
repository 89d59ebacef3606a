/**
 * Changes an endpoint (PATCH /webhooks/{id}): its URL (checked as at registration), description, filter (it applies to
 * the events scheduled from now on) or status. Disabling by hand (reason MANUAL) abandons its pending deliveries, which
 * stay in its log to replay; enabling a disabled endpoint clears its reason and failure run, and scheduling resumes from
 * where it stopped, so the events written meanwhile are delivered too.
 */
import type { WebhookEndpointStatus } from '../../db/schema.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { abandonPending, endpointView, ownedEndpoint, type WebhookDeps, type WebhookEndpointView, type WebhookFilter } from './deps.ts';
import { checkTarget } from './target.ts';

export interface UpdateEndpointInput {
  url?: string;
  description?: string | null;
  filter?: WebhookFilter;
  status?: WebhookEndpointStatus;
}

export type UpdateEndpointError = 'FORBIDDEN' | 'WEBHOOK_NOT_FOUND' | 'WEBHOOK_TARGET_REFUSED';

export async function updateEndpoint(deps: WebhookDeps, agentId: string | null, id: string, input: UpdateEndpointInput, recordEffect?: EffectRecorder): Promise<WebhookEndpointView> {
  const url = input.url === undefined ? undefined : await checkTarget(deps.targets, input.url);
  const now = deps.clock.now();
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await ownedEndpoint(trx, agentId, id, true);
    const disabling = input.status === 'disabled' && current.status === 'active';
    const enabling = input.status === 'active' && current.status === 'disabled';
    const updated = await trx
      .updateTable('webhook_endpoints')
      .set({
        ...(url !== undefined ? { url } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.filter !== undefined ? { filter: JSON.stringify(input.filter) } : {}),
        ...(disabling ? { status: 'disabled' as const, disabled_reason: 'MANUAL' as const } : {}),
        ...(enabling ? { status: 'active' as const, disabled_reason: null, failing_since: null } : {}),
        updated_at: now,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (disabling) await abandonPending(trx, id);
    await recordEffect?.(trx, id);
    return updated;
  });
  deps.nudge?.();
  return endpointView(row, now);
}
