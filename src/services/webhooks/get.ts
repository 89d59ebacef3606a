/** One endpoint of the calling agent (GET /webhooks/{id}); never its secret. */
import { endpointView, ownedEndpoint, type WebhookDeps, type WebhookEndpointView } from './deps.ts';

export type GetEndpointError = 'FORBIDDEN' | 'WEBHOOK_NOT_FOUND';

export async function getEndpoint(deps: WebhookDeps, agentId: string | null, id: string): Promise<WebhookEndpointView> {
  return endpointView(await ownedEndpoint(deps.db, agentId, id), deps.clock.now());
}
