// The caller as a trader: the wallet its orders settle under in the ledger, and the orders that are its own.
import type { Kysely } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import type { Account } from '../../../core/ledger/types.ts';
import type { Principal } from '../../../core/principal.ts';
import type { DB } from '../../../db/schema.ts';
import { requireAgent } from '../../identity/agents.ts';
import type { OrderLoopError } from './types.ts';

/** The caller is no agent (an operator key), or has no wallet bound. */
export type TraderError = OrderLoopError<'FORBIDDEN' | 'WALLET_NOT_BOUND'>;
/** The order does not exist or is another agent's. */
export type OrderNotFoundError = OrderLoopError<'ORDER_NOT_FOUND'>;

export interface Trader {
  agentId: string;
  /** The bound wallet, lower case: the ledger account the orders settle under. */
  owner: Account;
}

export async function walletOf(deps: { db: Kysely<DB> }, principal: Principal): Promise<Trader> {
  const agent = await requireAgent(deps.db, principal);
  if (!agent.wallet_address) throw problem('WALLET_NOT_BOUND', 'order-book trading settles in the ledger under your wallet: bind one (POST /agents/me/bind-wallet)');
  return { agentId: agent.id, owner: agent.wallet_address.toLowerCase() as Account };
}

/** The caller's order `orderId` (its market, owner and status as they stand now). */
export async function ownOrder(deps: { db: Kysely<DB> }, principal: Principal, orderId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(orderId)) throw problem('ORDER_NOT_FOUND', `no order ${orderId}`);
  const { agentId } = await walletOf(deps, principal);
  const o = await deps.db.selectFrom('orders').select(['id', 'agent_id', 'market_id', 'status']).where('id', '=', orderId).executeTakeFirst();
  if (!o || o.agent_id !== agentId) throw problem('ORDER_NOT_FOUND', `no order ${orderId} of this agent`);
  return { ...o, marketId: BigInt(o.market_id) };
}
