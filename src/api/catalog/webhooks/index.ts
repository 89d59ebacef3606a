// The webhook capabilities (docs/events.md "Webhooks"): the public discovery document, endpoint management, secret
// rotation, the delivery log and replay.
import { listWebhookDeliveries, replayWebhookDelivery } from './deliveries.ts';
import { webhooksDiscovery } from './discovery.ts';
import { deleteWebhook, getWebhook, listWebhooks, registerWebhook, updateWebhook } from './endpoints.ts';
import { rotateWebhookSecret } from './secrets.ts';

export const WEBHOOK_CAPABILITIES = [webhooksDiscovery, registerWebhook, listWebhooks, getWebhook, updateWebhook, deleteWebhook, rotateWebhookSecret, listWebhookDeliveries, replayWebhookDelivery];
