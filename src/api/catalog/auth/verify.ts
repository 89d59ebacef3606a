// POST /api/auth/verify: Sign-In with Ethereum. A signed EIP-4361 message opens a wallet session,
// delivered as the svc_session cookie and, on request, as a token for the Svc-Wallet-Session header.
import { z } from 'zod';
import { sessionCookie } from '../../../core/wallet-session.ts';
import { defineCapability, Reply } from '../types.ts';
import { WalletSessionResponse } from './session.ts';

export const verifySiwe = defineCapability({
  surface: 'consumer',
  method: 'POST',
  path: '/api/auth/verify',
  category: 'auth',
  summary: 'Sign in with Ethereum',
  description:
    'Verifies an EIP-4361 message (the SIWE template of GET /auth-discovery, with a nonce from POST /api/auth/nonce) and its EIP-191 signature, and opens a wallet session: the svc_session cookie (HttpOnly, SameSite=Lax, Secure on https) and, when returnToken is true, the token for the Svc-Wallet-Session header, shown once. Refusals answer 401 SIWE_INVALID with a reason.',
  tier: null,
  rateClass: 'write',
  idempotent: false,
  idempotencyExempt:
    'the signed message carries a single-use nonce, so a repeat is refused (SIWE_INVALID, reason NONCE_USED) and cannot open a second session; a stored replay would have to keep the session token in clear',
  input: {
    body: z.strictObject({
      message: z.string().min(1).max(4096),
      signature: z.string().min(1).max(1024),
      returnToken: z.boolean().optional().describe('true: also return the session token in the body (for the Svc-Wallet-Session header)'),
    }),
  },
  output: WalletSessionResponse.extend({ token: z.string().optional() }),
  outputName: 'WalletSignInResponse',
  responseHeaders: {
    'Set-Cookie': { description: 'svc_session=<token>; Path=/; Max-Age=<seconds>; HttpOnly; SameSite=Lax (and Secure when the service is on https)', required: true },
  },
  errors: ['SIWE_INVALID'],
  handler: async (ctx, { body }) => {
    const sessions = ctx.services.sessions;
    const { token, session } = await sessions.signIn({ message: body.message, signature: body.signature });
    const maxAgeSeconds = Math.round((session.expiresAt.getTime() - ctx.clock.now().getTime()) / 1000);
    return new Reply(
      {
        walletAddress: session.walletAddress,
        expiresAt: session.expiresAt.toISOString(),
        ...(body.returnToken ? { token } : {}),
      },
      200,
      { 'Set-Cookie': sessionCookie(token, { maxAgeSeconds, secure: sessions.secureCookies }) },
    );
  },
});
