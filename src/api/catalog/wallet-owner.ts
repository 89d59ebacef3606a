// Owner gate for consumer capabilities with walletAuth (e.g. the owner-gated reputation event logs).
import { problem } from '../../core/error-codes.ts';
import type { HandlerContext } from './types.ts';

/**
 * Passes when the caller's wallet session is `ownerWallet` (compared case-insensitively); an
 * authenticated non-owner gets 403 FORBIDDEN, a caller without a session 401 WALLET_AUTH_REQUIRED.
 */
export function assertWalletOwner(ctx: HandlerContext, ownerWallet: string): void {
  if (!ctx.walletSession) {
    throw problem('WALLET_AUTH_REQUIRED', 'this resource is owner-gated: sign in with POST /api/auth/verify (Sign-In with Ethereum) first');
  }
  if (ctx.walletSession.walletAddress.toLowerCase() !== ownerWallet.toLowerCase()) {
    throw problem('FORBIDDEN', 'only the owner of this resource may read it; the signed-in wallet is not its owner');
  }
}
