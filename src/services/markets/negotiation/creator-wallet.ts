// The creator of a market is an agent with a bound wallet: that wallet signs the factory transaction.
import type { Kysely } from 'kysely';
import { getAddress, type Address } from 'viem';
import { problem } from '../../../core/error-codes.ts';
import type { Principal } from '../../../core/principal.ts';
import type { DB } from '../../../db/schema.ts';
import { requireAgent, type AgentRow } from '../../identity/agents.ts';

export interface CreatorWallet {
  agentId: string;
  wallet: Address;
}

/** Throws WALLET_NOT_BOUND for an agent without a wallet. */
export function creatorWalletOf(agent: AgentRow): CreatorWallet {
  if (!agent.wallet_address) throw problem('WALLET_NOT_BOUND', 'creating markets needs a bound wallet: it signs the factory transaction (POST /agents/me/bind-wallet)');
  return { agentId: agent.id, wallet: getAddress(agent.wallet_address) };
}

export async function requireCreatorWallet(db: Kysely<DB>, principal: Principal): Promise<CreatorWallet> {
  return creatorWalletOf(await requireAgent(db, principal));
}
