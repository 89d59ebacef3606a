/**
 * Key rotation and wallet-proof key recovery. Rotation issues a new key with exactly the old
 * key's tier, scopes, status and expiry (rotating never extends an anonymous key) and revokes the
 * old one. Recovery proves control of the agent's bound wallet over the key-recovery template,
 * revokes every key the agent still has (whoever holds a lost key loses it too) and issues one new
 * key with the agent's entitlement. An agent without a bound wallet cannot recover (spec).
 */
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { entitlementOf } from '../../core/entitlement.ts';
import { problem } from '../../core/error-codes.ts';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../core/principal.ts';
import type { IssuedKey, KeyService } from '../keys/keys.ts';
import type { RateLimitStore } from '../rate-limit/store.ts';
import { findAgent, issueEntitledKey, proofsOf } from './agents.ts';
import { chargeRegistration } from './registration-limits.ts';
import type { WalletProofInput, WalletProofVerifier } from './wallet-proof.ts';

export interface RecoveredKey extends IssuedKey {
  agentId: string;
  revokedKeyIds: string[];
}

export interface AgentKeyService {
  rotate(principal: Principal, keyId: string): Promise<IssuedKey & { revokedKeyId: string }>;
  recover(proof: WalletProofInput): Promise<RecoveredKey>;
}

export function createAgentKeyService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  keys: KeyService;
  walletProofs: WalletProofVerifier;
  rateLimits: RateLimitStore;
}): AgentKeyService {
  const { db, clock, keys } = deps;

  const revokeAll = async (trx: Transaction<DB>, agentId: string): Promise<string[]> => {
    const rows = await trx
      .updateTable('api_keys')
      .set({ status: 'revoked', revoked_at: clock.now() })
      .where('agent_id', '=', agentId)
      .where('status', '!=', 'revoked')
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  };

  return {
    async rotate(principal, keyId) {
      const old = await keys.get(keyId);
      // Someone else's key, or one that no longer works, is simply not found: nothing is disclosed.
      const mine = old && (old.id === principal.keyId || (principal.agentId !== null && old.agentId === principal.agentId));
      if (!old || !mine || old.status === 'revoked' || old.status === 'expired') {
        throw problem('NOT_FOUND', `no live key ${keyId} belongs to this agent`);
      }
      return db.transaction().execute(async (trx) => {
        const revoked = await trx
          .updateTable('api_keys')
          .set({ status: 'revoked', revoked_at: clock.now() })
          .where('id', '=', old.id)
          .where('status', '!=', 'revoked')
          .returning('id')
          .executeTakeFirst();
        // Two rotations of one key raced: only the first issues a successor.
        if (!revoked) throw problem('NOT_FOUND', `key ${keyId} was rotated or revoked meanwhile`);
        // Grants come from the agent as it is now (a claim or a bound wallet may have landed since
        // `old` was read); the expiry is the old key's, so rotating never extends an anonymous key.
        const agent = old.agentId ? await findAgent(trx, old.agentId) : undefined;
        const entitlement = agent ? entitlementOf(proofsOf(agent)) : null;
        const issued = await keys.create(
          {
            tier: entitlement?.tier ?? old.tier,
            scopes: entitlement?.scopes ?? old.scopes,
            status: entitlement?.status ?? (old.status as 'active' | 'dormant'),
            expiresAt: entitlement && !entitlement.expires ? null : old.expiresAt,
            agentId: old.agentId,
            label: old.label,
          },
          trx,
        );
        return { ...issued, revokedKeyId: old.id };
      });
    },

    async recover(proof) {
      const wallet = await deps.walletProofs.verifyTemplate('agent-key-recovery', proof);
      // Charged after the proof: only the wallet's holder can spend its recovery budget.
      await chargeRegistration(deps, 'key-recovery', wallet);
      const agent = await db.selectFrom('agents').selectAll().where('wallet_address', '=', wallet).executeTakeFirst();
      if (!agent) {
        throw problem('NO_AGENT_FOR_WALLET', `no agent has ${wallet} bound; recovery needs the wallet bound to the agent (an agent without a bound wallet cannot recover)`);
      }
      return db.transaction().execute(async (trx) => {
        const revokedKeyIds = await revokeAll(trx, agent.id);
        const issued = await issueEntitledKey(keys, trx, agent, clock.now());
        if (!issued) throw problem('FORBIDDEN', 'operator keys are issued with `svc keys create`, not recovered');
        return { ...issued, agentId: agent.id, revokedKeyIds };
      });
    },
  };
}
