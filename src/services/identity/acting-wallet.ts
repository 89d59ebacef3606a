// The wallet an agent's call acts for (claims, challenges, collections): the one an MCP call proved with a wallet
// proof, or else the key's bound wallet.
import type { Kysely } from 'kysely';
import { problem } from '../../core/error-codes.ts';
import type { Principal } from '../../core/principal.ts';
import type { DB } from '../../db/schema.ts';
import { requireAgent } from './agents.ts';

/** The wallet a step acts for: the one an MCP call proved, or else the key's bound wallet (WALLET_NOT_BOUND). Lowercase. */
export async function actingWallet(deps: { db: Kysely<DB> }, principal: Principal, provenWallet: string | null, why: string): Promise<string> {
  if (provenWallet) return provenWallet.toLowerCase();
  const wallet = (await requireAgent(deps.db, principal)).wallet_address;
  if (!wallet) throw problem('WALLET_NOT_BOUND', `${why}: bind one (POST /agents/me/bind-wallet) or, over MCP, prove one`);
  return wallet.toLowerCase();
}
