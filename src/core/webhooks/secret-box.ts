/**
 * Webhook signing secrets at rest. Unlike an API key, an HMAC secret must be read back to sign, so it cannot be kept as
 * a digest: it is sealed with AES-256-GCM under a key derived (HKDF-SHA256) from WEBHOOK_SECRET_KEY or, without one,
 * from the operator key, and bound to its endpoint (the additional data), so a sealed secret copied onto another row
 * does not open. Pure.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface SecretBox {
  /** Seals `plain` for `context` (the endpoint id). */
  seal(plain: string, context: string): string;
  /** Opens what seal made for the same context; throws when the key or the context differ. */
  open(sealed: string, context: string): string;
}

const VERSION = 'v1';
const INFO = 'svc webhook signing secrets v1';

/** The 32-byte sealing key: HKDF-SHA256 of the key material (WEBHOOK_SECRET_KEY's or the operator key's bytes). */
export const deriveSecretBoxKey = (material: Uint8Array): Buffer => Buffer.from(hkdfSync('sha256', material, 'svc', INFO, 32));

export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== 32) throw new Error('a secret box key is 32 bytes');
  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, body, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    open(sealed, context) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || body === undefined || !tag) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
