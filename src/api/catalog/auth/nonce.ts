import { z } from 'zod';
import { defineCapability } from '../types.ts';

export const createAuthNonce = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/api/auth/nonce',
  category: 'auth',
  summary: 'Single-use nonce',
  description:
    'Issues a single-use nonce (TTL 300 s) for a wallet proof or a SIWE sign-in. It is consumed by the first successful verification; a replay is refused. signedNonce is the service\'s HMAC of the nonce.',
  tier: null,
  rateClass: 'write',
  idempotent: false,
  idempotencyExempt: 'each call issues a fresh nonce; a retry just issues another, and unused nonces expire after 300 s',
  mcp: { tool: 'svc_auth_nonce' },
  input: { body: z.strictObject({}).optional() },
  output: z.object({ nonce: z.string().regex(/^[0-9a-f]{32}$/), signedNonce: z.string().regex(/^[0-9a-f]{64}$/) }),
  errors: ['INVALID_PAYLOAD'],
  handler: async (ctx) => {
    const { nonce, signedNonce } = await ctx.services.nonces.issue('auth');
    return { nonce, signedNonce };
  },
});
