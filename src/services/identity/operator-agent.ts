// `svc agents create`: an agent the operator makes without any registration path (registration_path 'operator'),
// with its first key of the tier and scopes the operator names. Such an agent's keys keep what the operator gave them:
// no proof changes them (core/entitlement.ts), and only the operator issues more.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { Scope } from '../../core/scopes.ts';
import type { AgentTier } from '../../core/tiers.ts';
import { isUniqueViolation } from '../../db/index.ts';
import type { DB } from '../../db/schema.ts';
import type { KeyRecord, KeyService } from '../keys/keys.ts';
import { walletTaken } from './agents.ts';
import type { WalletBoundHook } from './signup-grant.ts';

export interface OperatorAgentDeps {
  db: Kysely<DB>;
  clock: Clock;
  keys: KeyService;
  /** Runs when the agent is made with a wallet (the play-money signup grant, as for any first bound wallet). */
  onWalletBound?: WalletBoundHook;
}

export interface CreateOperatorAgentParams {
  /** Checked by the caller (the rule of POST /register's `name`). */
  name: string;
  tier: AgentTier;
  scopes: readonly Scope[];
  /** A wallet the operator vouches for, bound at once (no proof); null for none (the agent can bind one later). */
  wallet: string | null;
  /** The key's label. */
  label: string | null;
}

export interface OperatorAgent {
  agent: { id: string; name: string; walletAddress: string | null };
  /** The raw key: returned once, stored only as its hash. */
  key: string;
  keyRecord: KeyRecord;
}

/** Makes the agent and its key in one transaction; WALLET_ALREADY_BOUND when another agent has the wallet. */
export async function createOperatorAgent(deps: OperatorAgentDeps, params: CreateOperatorAgentParams): Promise<OperatorAgent> {
  const wallet = params.wallet?.toLowerCase() ?? null;
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const agent = await trx
        .insertInto('agents')
        .values({ id: randomUUID(), name: params.name, wallet_address: wallet, registration_path: 'operator', created_at: deps.clock.now() })
        .returningAll()
        .executeTakeFirstOrThrow();
      const issued = await deps.keys.create({ tier: params.tier, scopes: params.scopes, agentId: agent.id, label: params.label }, trx);
      if (wallet) await deps.onWalletBound?.(trx, agent.id, wallet);
      return { agent: { id: agent.id, name: agent.name, walletAddress: agent.wallet_address }, key: issued.key, keyRecord: issued.record };
    });
  } catch (err) {
    if (wallet && isUniqueViolation(err)) throw walletTaken(wallet);
    throw err;
  }
}
