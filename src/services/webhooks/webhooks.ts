/**
 * Webhooks (docs/events.md "Webhooks"), following the Standard Webhooks specification: an agent's endpoints with
 * their signing secrets, filters and delivery logs. This binds the operations of this folder; the dispatcher
 * (dispatcher.ts) delivers.
 */
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { WebhookDeliveryView, WebhookDeps, WebhookEndpointView } from './deps.ts';
import { getDelivery, listDeliveries, type DeliveryPage, type ListDeliveriesInput } from './deliveries.ts';
import { deleteEndpoint } from './delete.ts';
import { getEndpoint } from './get.ts';
import { listEndpoints } from './list.ts';
import { registerEndpoint, type RegisteredEndpoint, type RegisterEndpointInput } from './register.ts';
import { replayDelivery } from './replay.ts';
import { recordedRotation, rotateSecret, type RotatedSecret } from './rotate-secret.ts';
import { updateEndpoint, type UpdateEndpointInput } from './update.ts';

export type { WebhookDeliveryView, WebhookDeps, WebhookEndpointView, WebhookFilter } from './deps.ts';
export type { DeliveryPage, ListDeliveriesInput } from './deliveries.ts';
export type { RegisteredEndpoint, RegisterEndpointInput } from './register.ts';
export type { RotatedSecret } from './rotate-secret.ts';
export type { UpdateEndpointInput } from './update.ts';

/** Every operation acts for `agentId`, the calling key's agent (null, an operator key, is refused with FORBIDDEN). */
export interface WebhookService {
  /** What GET /webhooks/discovery reports of this deployment's settings. */
  readonly settings: { allowPrivateTargets: boolean };
  register(agentId: string | null, input: RegisterEndpointInput, recordEffect?: EffectRecorder): Promise<RegisteredEndpoint>;
  list(agentId: string | null): Promise<WebhookEndpointView[]>;
  get(agentId: string | null, id: string): Promise<WebhookEndpointView>;
  update(agentId: string | null, id: string, input: UpdateEndpointInput, recordEffect?: EffectRecorder): Promise<WebhookEndpointView>;
  remove(agentId: string | null, id: string, recordEffect?: EffectRecorder): Promise<{ id: string; deleted: true }>;
  rotateSecret(agentId: string | null, id: string, overlapSeconds?: number, recordEffect?: EffectRecorder): Promise<RotatedSecret>;
  /** The answer to a retried rotation whose effect committed: without the secret. */
  recordedRotation(agentId: string | null, id: string): Promise<RotatedSecret>;
  deliveries(agentId: string | null, endpointId: string, input: ListDeliveriesInput): Promise<DeliveryPage>;
  delivery(agentId: string | null, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView>;
  replay(agentId: string | null, endpointId: string, deliveryId: string, recordEffect?: EffectRecorder): Promise<WebhookDeliveryView>;
}

export function createWebhookService(deps: WebhookDeps): WebhookService {
  return {
    settings: { allowPrivateTargets: deps.targets.allowPrivate },
    register: (agentId, input, recordEffect) => registerEndpoint(deps, agentId, input, recordEffect),
    list: (agentId) => listEndpoints(deps, agentId),
    get: (agentId, id) => getEndpoint(deps, agentId, id),
    update: (agentId, id, input, recordEffect) => updateEndpoint(deps, agentId, id, input, recordEffect),
    remove: (agentId, id, recordEffect) => deleteEndpoint(deps, agentId, id, recordEffect),
    rotateSecret: (agentId, id, overlapSeconds, recordEffect) => rotateSecret(deps, agentId, id, overlapSeconds, recordEffect),
    recordedRotation: (agentId, id) => recordedRotation(deps, agentId, id),
    deliveries: (agentId, endpointId, input) => listDeliveries(deps, agentId, endpointId, input),
    delivery: (agentId, endpointId, deliveryId) => getDelivery(deps, agentId, endpointId, deliveryId),
    replay: (agentId, endpointId, deliveryId, recordEffect) => replayDelivery(deps, agentId, endpointId, deliveryId, recordEffect),
  };
}
