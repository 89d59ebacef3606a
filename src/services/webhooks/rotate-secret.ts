/**
 * Rotates an endpoint's signing secret (POST /webhooks/{id}/rotate-secret): a new whsec_ secret, returned this once,
 * signs from now on; the one it replaces keeps signing alongside it (two `v1,` signatures in webhook-signature) for the
 * overlap — 24 hours unless asked for less (0 for a leaked secret) — so a receiver switches secrets without losing a
 * delivery. Rotating again during an overlap drops the oldest secret at once.
 */
import { ROTATION_OVERLAP_MS } from '../../core/webhooks/policy.ts';
import { newWebhookSecret } from '../../core/webhooks/signature.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { endpointView, ownedEndpoint, type WebhookDeps, type WebhookEndpointView } from './deps.ts';

export interface RotatedSecret {
  endpoint: WebhookEndpointView;
  /** The new secret, shown once (null when a retry rebuilds the answer). */
  secret: string | null;
  /** Until when the previous secret also signs; null when it stopped at once. */
  previousSecretExpiresAt: string | null;
}

export type RotateSecretError = 'FORBIDDEN' | 'WEBHOOK_NOT_FOUND';

export async function rotateSecret(deps: WebhookDeps, agentId: string | null, id: string, overlapSeconds: number | undefined, recordEffect?: EffectRecorder): Promise<RotatedSecret> {
  const secret = newWebhookSecret();
  const now = deps.clock.now();
  const overlapMs = overlapSeconds === undefined ? ROTATION_OVERLAP_MS : Math.min(overlapSeconds * 1000, ROTATION_OVERLAP_MS);
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await ownedEndpoint(trx, agentId, id, true);
    const updated = await trx
      .updateTable('webhook_endpoints')
      .set({
        secret_sealed: deps.secrets.seal(secret, id),
        previous_secret_sealed: overlapMs > 0 ? current.secret_sealed : null,
        previous_secret_expires_at: overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null,
        updated_at: now,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordEffect?.(trx, id);
    return updated;
  });
  const endpoint = endpointView(row, now);
  return { endpoint, secret, previousSecretExpiresAt: endpoint.previousSecretExpiresAt };
}

/** The answer to a retry of a rotation whose effect committed: the endpoint as it stands, without the secret. */
export async function recordedRotation(deps: WebhookDeps, agentId: string | null, id: string): Promise<RotatedSecret> {
  const endpoint = endpointView(await ownedEndpoint(deps.db, agentId, id), deps.clock.now());
  return { endpoint, secret: null, previousSecretExpiresAt: endpoint.previousSecretExpiresAt };
}
