/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, "Signature scheme"): a secret is `whsec_` + base64 of
 * random bytes; a signature is `v1,` + base64 of HMAC-SHA256, keyed with the secret's decoded bytes, over
 * `${webhook-id}.${webhook-timestamp}.${body}`. Several signatures (one per live secret, during a rotation) are joined
 * by spaces in the webhook-signature header; a receiver accepts the request when one of them verifies.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Random bytes of a new secret (the spec asks for at least 24). */
export const WEBHOOK_SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + base64 of WEBHOOK_SECRET_BYTES random bytes. */
export const newWebhookSecret = (): string => `${WEBHOOK_SECRET_PREFIX}${randomBytes(WEBHOOK_SECRET_BYTES).toString('base64')}`;

/** The exact text that is signed: webhook-id, webhook-timestamp (unix seconds) and the raw body, joined by full stops. */
export const signedContent = (msgId: string, timestampSeconds: number, body: string): string => `${msgId}.${timestampSeconds}.${body}`;

/** One `v1,<base64>` signature of `body` under `secret` (a whsec_ secret) at `timestampSeconds` (unix seconds). */
export function signWebhook(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(signedContent(msgId, timestampSeconds, body), 'utf8').digest('base64')}`;
}

/** The webhook-signature header: one signature per secret, current first, space-separated. */
export const signatureHeader = (secrets: readonly string[], msgId: string, timestampSeconds: number, body: string): string =>
  secrets.map((s) => signWebhook(s, msgId, timestampSeconds, body)).join(' ');
