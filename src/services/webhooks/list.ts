/** The calling agent's webhook endpoints, oldest first (GET /webhooks); never their secrets. */
import { agentOf, endpointView, type WebhookDeps, type WebhookEndpointView } from './deps.ts';

export async function listEndpoints(deps: WebhookDeps, agentId: string | null): Promise<WebhookEndpointView[]> {
  const rows = await deps.db.selectFrom('webhook_endpoints').selectAll().where('agent_id', '=', agentOf(agentId)).orderBy('created_at').orderBy('id').execute();
  const now = deps.clock.now();
  return rows.map((r) => endpointView(r, now));
}
