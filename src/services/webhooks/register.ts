/**
 * Registers a webhook endpoint (POST /webhooks): the target is checked (target.ts), a new whsec_ signing secret is made,
 * sealed for storage and returned this once, and the endpoint starts after the outbox's current head: it receives the
 * matching events written from now on.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { problem } from '../../core/error-codes.ts';
import { MAX_ENDPOINTS_PER_AGENT } from '../../core/webhooks/policy.ts';
import { newWebhookSecret } from '../../core/webhooks/signature.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { agentOf, endpointView, type WebhookDeps, type WebhookEndpointView, type WebhookFilter } from './deps.ts';
import { checkTarget } from './target.ts';

export interface RegisterEndpointInput {
  url: string;
  description?: string | null;
  filter?: WebhookFilter;
}

export interface RegisteredEndpoint {
  endpoint: WebhookEndpointView;
  /** The signing secret, shown once (null when a retry rebuilds the answer). */
  secret: string | null;
}

export type RegisterEndpointError = 'FORBIDDEN' | 'WEBHOOK_TARGET_REFUSED' | 'WEBHOOK_ENDPOINT_LIMIT';

export async function registerEndpoint(deps: WebhookDeps, agentId: string | null, input: RegisterEndpointInput, recordEffect?: EffectRecorder): Promise<RegisteredEndpoint> {
  const owner = agentOf(agentId);
  const url = await checkTarget(deps.targets, input.url);
  const id = randomUUID();
  const secret = newWebhookSecret();
  const now = deps.clock.now();
  const row = await deps.db.transaction().execute(async (trx) => {
    // The agent's row lock serialises its registrations, so two at once cannot pass the limit together.
    await trx.selectFrom('agents').select('id').where('id', '=', owner).forUpdate().executeTakeFirstOrThrow();
    const { n } = await trx.selectFrom('webhook_endpoints').select(sql<string>`count(*)`.as('n')).where('agent_id', '=', owner).executeTakeFirstOrThrow();
    if (Number(n) >= MAX_ENDPOINTS_PER_AGENT) {
      throw problem('WEBHOOK_ENDPOINT_LIMIT', `an agent has at most ${MAX_ENDPOINTS_PER_AGENT} webhook endpoints; delete one (DELETE /webhooks/{id}) or widen the filter of another`);
    }
    const head = await trx.selectFrom('event_sequence').select('last_seq').where('id', '=', 1).executeTakeFirstOrThrow();
    const inserted = await trx
      .insertInto('webhook_endpoints')
      .values({
        id,
        agent_id: owner,
        url,
        description: input.description ?? null,
        filter: JSON.stringify(input.filter ?? {}),
        status: 'active',
        disabled_reason: null,
        secret_sealed: deps.secrets.seal(secret, id),
        previous_secret_sealed: null,
        previous_secret_expires_at: null,
        cursor_seq: head.last_seq,
        failing_since: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordEffect?.(trx, id);
    return inserted;
  });
  deps.nudge?.();
  return { endpoint: endpointView(row, now), secret };
}
