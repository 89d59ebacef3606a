// Reading agents and keeping their keys in line with what they have proved (core/entitlement.ts).
import type { Kysely, Selectable, Transaction } from 'kysely';
import { ANONYMOUS_KEY_TTL_MS, entitlementOf } from '../../core/entitlement.ts';
import type { AgentsTable, DB } from '../../db/schema.ts';

export type AgentRow = Selectable<AgentsTable>;

export const findAgent = (db: Kysely<DB> | Transaction<DB>, id: string): Promise<AgentRow | undefined> =>
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

/** The expiry a new key of this agent gets (anonymous: 24 h from `now`). */
export function keyExpiryFor(agent: AgentRow, now: Date): Date | null {
  return entitlementOf(proofsOf(agent))?.expires ? new Date(now.getTime() + ANONYMOUS_KEY_TTL_MS) : null;
}
