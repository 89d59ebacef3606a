// Reading agents and keeping their keys in line with what they have proved (core/entitlement.ts).
import type { Selectable, Transaction } from 'kysely';
import { ANONYMOUS_KEY_TTL_MS, entitlementOf } from '../../core/entitlement.ts';
import { problem } from '../../core/error-codes.ts';
import type { Principal } from '../../core/principal.ts';
import type { Executor } from '../../db/index.ts';
import type { IssuedKey, KeyService } from '../keys/keys.ts';
import type { AgentsTable, DB } from '../../db/schema.ts';

export type AgentRow = Selectable<AgentsTable>;

export const findAgent = (db: Executor, id: string): Promise<AgentRow | undefined> =>
  db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();

export const proofsOf = (agent: AgentRow) => ({
  registrationPath: agent.registration_path,
  walletAddress: agent.wallet_address,
  emailVerified: agent.email_verified,
  claimedAt: agent.claimed_at,
});

/**
 * Recomputes the agent's entitlement and writes it onto every key that is not revoked: tier,
 * scopes, dormant/active, and the 24 h expiry only while the agent is anonymous (binding an email
 * or a wallet clears it). Keys already expired or revoked are left as they are. Call inside the
 * transaction that changed the agent.
 */
export async function applyEntitlement(trx: Transaction<DB>, agentId: string, now: Date): Promise<void> {
  const agent = await findAgent(trx, agentId);
  if (!agent) throw new Error(`applyEntitlement: no agent ${agentId}`);
  const entitlement = entitlementOf(proofsOf(agent));
  if (!entitlement) return;
  await trx
    .updateTable('api_keys')
    .set((eb) => ({
      tier: entitlement.tier,
      scopes: JSON.stringify(entitlement.scopes),
      status: entitlement.status,
      // An anonymous key keeps the expiry it was issued with; a key that gained a proof loses it.
      expires_at: entitlement.expires ? eb.ref('expires_at') : null,
    }))
    .where('agent_id', '=', agentId)
    .where('status', '!=', 'revoked')
    // An expired key stays expired: a proof that lands later must not bring it back.
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
}

/**
 * Issues a new key carrying the agent's entitlement (anonymous keys expire 24 h from `now`);
 * null for an operator agent, whose keys only `svc keys create` issues.
 */
export async function issueEntitledKey(keys: KeyService, trx: Transaction<DB>, agent: AgentRow, now: Date): Promise<IssuedKey | null> {
  const entitlement = entitlementOf(proofsOf(agent));
  if (!entitlement) return null;
  const expiresAt = entitlement.expires ? new Date(now.getTime() + ANONYMOUS_KEY_TTL_MS) : null;
  return keys.create({ tier: entitlement.tier, scopes: entitlement.scopes, status: entitlement.status, expiresAt, agentId: agent.id }, trx);
}

/** The calling key's agent; keys issued by `svc keys create` have none. */
export async function requireAgent(db: Executor, principal: Principal): Promise<AgentRow> {
  const agent = principal.agentId ? await findAgent(db, principal.agentId) : undefined;
  if (!agent) throw problem('FORBIDDEN', 'this API key belongs to no agent (an operator key); register an agent with POST /register');
  return agent;
}

/** A wallet belongs to one agent: the unique index on agents.wallet_address says so, this says it to the caller. */
export const walletTaken = (wallet: string) =>
  problem('WALLET_ALREADY_BOUND', `wallet ${wallet} is already bound to an agent; recover its key with POST /keys/recover`);
