// POST /api/auth/logout: ends the caller's wallet session and clears the session cookie.
import { z } from 'zod';
import { clearedSessionCookie } from '../../../core/wallet-session.ts';
import { EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability, Reply } from '../types.ts';

export const logoutWalletSession = defineCapability({
  surface: 'consumer',
  method: 'POST',
  path: '/api/auth/logout',
  category: 'auth',
  summary: 'End the wallet session',
  description:
    'Revokes the wallet session sent with the request (svc_session cookie or Svc-Wallet-Session header) and clears the cookie. The token is refused from then on (401 WALLET_AUTH_REQUIRED).',
  tier: null,
  walletAuth: 'required',
  rateClass: 'write',
  idempotent: true,
  idempotencyExempt: 'revoking is final and has nothing to replay: a repeat finds the session already ended and answers 401 WALLET_AUTH_REQUIRED',
  input: { body: z.strictObject({}).optional() },
  output: z.object({ walletAddress: EvmAddress, revokedAt: IsoTimestamp }),
  outputName: 'WalletLogoutResponse',
  responseHeaders: { 'Set-Cookie': { description: 'Clears svc_session (Max-Age=0)', required: true } },
  errors: ['INVALID_PAYLOAD'],
  handler: async (ctx) => {
    const session = ctx.walletSession!;
    const revokedAt = await ctx.services.sessions.revoke(session.sessionId);
    return new Reply({ walletAddress: session.walletAddress, revokedAt: revokedAt.toISOString() }, 200, {
      'Set-Cookie': clearedSessionCookie(ctx.services.sessions.secureCookies),
    });
  },
});
