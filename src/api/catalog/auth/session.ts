// GET /api/auth/session: the wallet session the caller holds (cookieAuth or developerAuthHeader).
import { z } from 'zod';
import { EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

export const WalletSessionResponse = z.object({
  /** Lowercase. */
  walletAddress: EvmAddress,
  expiresAt: IsoTimestamp,
});

export const getWalletSession = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/api/auth/session',
  category: 'auth',
  summary: 'Current wallet session',
  description:
    'The wallet (lowercase) and expiry of the session sent with the request, in the svc_session cookie or the Svc-Wallet-Session header. Without a usable session: 401 WALLET_AUTH_REQUIRED.',
  tier: null,
  walletAuth: 'required',
  rateClass: 'read',
  idempotent: true,
  output: WalletSessionResponse,
  outputName: 'WalletSessionResponse',
  errors: [],
  handler: async (ctx) => {
    const session = ctx.walletSession!;
    return { walletAddress: session.walletAddress, expiresAt: session.expiresAt.toISOString() };
  },
});
