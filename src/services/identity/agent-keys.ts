/**
 * Key rotation and wallet-proof key recovery. Rotation issues a new key with exactly the old
 * key's tier, scopes, status and expiry (rotating never extends an anonymous key) and revokes the
 * old one. Recovery proves control of the agent's bound wallet over the key-recovery template,
 * revokes every key the agent still has (whoever holds a lost key loses it too) and issues one new
 * key with the agent's entitlement. An agent without a bound wallet cannot recover (spec). Each is one transaction
 * (the proof's nonce is spent in it) that, under an Idempotency-Key, records the keys it issued and revoked.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { entitlementOf } from '../../core/entitlement.ts';
import { problem } from '../../core/error-codes.ts';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../core/principal.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { KeyRecord, KeyService } from '../keys/keys.ts';
import type { RateLimitStore } from '../rate-limit/store.ts';
import { findAgent, issueEntitledKey, proofsOf } from './agents.ts';
import { chargeRegistration } from './registration-limits.ts';
import type { WalletProofInput, WalletProofVerifier } from './wallet-proof.ts';

/** A key issued in place of others. */
interface ReplacingKey {
  /** The raw key; null when read back from an Idempotency-Key's record (a key is shown once). */
  key: string | null;
  record: KeyRecord;
}

export interface RotatedKey extends ReplacingKey {
  revokedKeyId: string;
}

export interface RecoveredKey extends ReplacingKey {
  agentId: string;
  revokedKeyIds: string[];
}

/** What a rotation or recovery records under an Idempotency-Key: the key it issued and those it revoked. */
interface ReplacementRef {
  keyId: string;
  revokedKeyIds: string[];
}

export interface AgentKeyService {
  rotate(principal: Principal, keyId: string, recordEffect?: EffectRecorder): Promise<RotatedKey>;
  /** The rotation `rotate` recorded as `ref`, its key as it stands now (without the raw key). */
  recordedRotation(ref: string): Promise<RotatedKey>;
  recover(proof: WalletProofInput, recordEffect?: EffectRecorder): Promise<RecoveredKey>;
  /** The recovery `recover` recorded as `ref`, its key as it stands now (without the raw key). */
  recordedRecovery(ref: string): Promise<RecoveredKey>;
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

  const recordReplacement = (trx: Transaction<DB>, recordEffect: EffectRecorder | undefined, ref: ReplacementRef) => recordEffect?.(trx, JSON.stringify(ref));

  const recorded = async (ref: string): Promise<ReplacementRef & { record: KeyRecord }> => {
    const parsed = JSON.parse(ref) as ReplacementRef;
    const record = await keys.get(parsed.keyId);
    if (!record) throw new Error(`key replacement ${ref}: key ${parsed.keyId} is missing (keys are never deleted)`);
    return { ...parsed, record };
  };

  return {
    async rotate(principal, keyId, recordEffect) {
      const old = await keys.get(keyId);
      // Someone else's key, or one that no longer works, is simply not found: nothing is disclosed.
      const mine = old && (old.id === principal.keyId || (principal.agentId !== null && old.agentId === principal.agentId));
      if (!old || !mine || old.status === 'revoked' || old.status === 'expired') {
        throw problem('NOT_FOUND', `no live key ${keyId} belongs to this agent`);
      }
      return keys.changing(() => db.transaction().execute(async (trx) => {
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
        await recordReplacement(trx, recordEffect, { keyId: issued.record.id, revokedKeyIds: [old.id] });
        return { ...issued, revokedKeyId: old.id };
      }));
    },

    async recordedRotation(ref) {
      const { record, revokedKeyIds } = await recorded(ref);
      return { key: null, record, revokedKeyId: revokedKeyIds[0]! };
    },

    async recover(proof, recordEffect) {
      const { wallet, consume } = await deps.walletProofs.checkTemplate('agent-key-recovery', proof);
      // Charged after the proof: only the wallet's holder can spend its recovery budget.
      await chargeRegistration(deps, 'key-recovery', wallet);
      const agent = await db.selectFrom('agents').selectAll().where('wallet_address', '=', wallet).executeTakeFirst();
      if (!agent) {
        throw problem('NO_AGENT_FOR_WALLET', `no agent has ${wallet} bound; recovery needs the wallet bound to the agent (an agent without a bound wallet cannot recover)`);
      }
      return keys.changing(() => db.transaction().execute(async (trx) => {
        await consume(trx);
        const revokedKeyIds = await revokeAll(trx, agent.id);
        const issued = await issueEntitledKey(keys, trx, agent, clock.now());
        if (!issued) throw problem('FORBIDDEN', 'an agent the operator made gets its keys from the operator (`svc keys create --agent <agentId>`), not by recovery');
        await recordReplacement(trx, recordEffect, { keyId: issued.record.id, revokedKeyIds });
        return { ...issued, agentId: agent.id, revokedKeyIds };
      }));
    },

    async recordedRecovery(ref) {
      const { record, revokedKeyIds } = await recorded(ref);
      return { key: null, record, agentId: record.agentId!, revokedKeyIds };
    },
  };
}
