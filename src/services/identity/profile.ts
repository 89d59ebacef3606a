/**
 * GET /me: the calling agent as the spec's "Agent identity" resource. tier and scopes are the
 * calling key's; capabilities are the catalog's agent capabilities this key's tier reaches; fills
 * is null until a wallet is bound (play-money order-book trading is wallet-bound).
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { fillAllowance, fillMonth, type FillAllowance, type FillPack } from '../../core/fill-allowance.ts';
import type { DB } from '../../db/schema.ts';
import { tierRank, type AgentTier } from '../../core/tiers.ts';
import type { Principal } from '../../core/principal.ts';
import { DATA_PLANE_LIMITS, RATE_LIMITS, RATE_WINDOW_MS } from '../rate-limit/limits.ts';
import { requireAgent } from './agents.ts';
import type { HumanVerificationService } from './human-verification.ts';
import type { ReputationView } from '../reputation/reads/view.ts';

export interface AgentIdentity {
  id: string;
  kind: 'agent';
  name: string;
  walletAddress: string | null;
  email: string | null;
  emailVerified: boolean;
  tier: AgentTier;
  scopes: string[];
  humanIdVerified: boolean;
  chainBindings: { chainId: number }[];
  rateLimits: { windowSeconds: number; readPerMinute: number; writePerMinute: number; dataPerMinute: number };
  dataPlane: { framesPerMarketPerMinute: number; dataPerMinute: number };
  /** The bound wallet's black-box reputation (tier, rank, gates); null without a bound wallet. */
  reputation: ReputationView | null;
  fills: FillAllowance | null;
  environment: 'live' | 'test';
  /** The calling key (not part of the resource; it builds links.rotateKey). */
  keyId: string;
}

/** An agent's fill allowance now: this UTC month's free usage from fill_usage, `paidRemaining` from its agents row. */
export async function readFillAllowance(
  deps: { db: Kysely<DB>; clock: Clock; fills: { enabled: boolean; freePerMonth: number; packs: readonly FillPack[] } },
  agentId: string,
  paidRemaining: number,
): Promise<FillAllowance> {
  const now = deps.clock.now();
  const usage = await deps.db.selectFrom('fill_usage').select('free_used').where('agent_id', '=', agentId).where('month', '=', fillMonth(now)).executeTakeFirst();
  return fillAllowance({ ...deps.fills, freeUsedThisMonth: usage?.free_used ?? 0, paidRemaining, now });
}

export interface ProfileService {
  me(principal: Principal): Promise<AgentIdentity>;
}

export function createProfileService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  chainId: number;
  environment: 'live' | 'test';
  fills: { enabled: boolean; freePerMonth: number; packs: FillPack[] };
  /** humanIdVerified: the agent's wallet, or a wallet linked with it, has a live attestation. */
  humans: Pick<HumanVerificationService, 'voterOf'>;
  /** The bound wallet's reputation, and the free fills of its tier (docs/reputation.md "Gates"). */
  reputation?: { of(wallet: string): Promise<ReputationView | null>; freeFillsOfAgent(agentId: string): Promise<number> };
}): ProfileService {
  const { db, clock } = deps;

  const fillsOf = async (agentId: string, paidRemaining: number): Promise<FillAllowance> => {
    const freePerMonth = deps.reputation ? await deps.reputation.freeFillsOfAgent(agentId) : deps.fills.freePerMonth;
    return readFillAllowance({ db, clock, fills: { ...deps.fills, freePerMonth } }, agentId, paidRemaining);
  };

  return {
    async me(principal) {
      const agent = await requireAgent(db, principal);
      const rates = RATE_LIMITS[principal.tier];
      const data = DATA_PLANE_LIMITS[principal.tier];
      return {
        id: agent.id,
        kind: 'agent',
        name: agent.name,
        walletAddress: agent.wallet_address,
        email: agent.email,
        emailVerified: agent.email_verified,
        tier: principal.tier,
        scopes: [...principal.scopes],
        humanIdVerified: agent.wallet_address ? (await deps.humans.voterOf(agent.wallet_address)).attestation !== null : false,
        chainBindings: agent.wallet_address ? [{ chainId: deps.chainId }] : [],
        rateLimits: { windowSeconds: RATE_WINDOW_MS / 1000, readPerMinute: rates.read, writePerMinute: rates.write, dataPerMinute: data.dataPerMinute },
        dataPlane: data,
        reputation: agent.wallet_address && deps.reputation ? await deps.reputation.of(agent.wallet_address) : null,
        fills: agent.wallet_address ? await fillsOf(agent.id, agent.paid_fills_remaining) : null,
        environment: deps.environment,
        keyId: principal.keyId,
      };
    },
  };
}

/** Capabilities a key of `tier` can call (public ones advertise read-only). */
export const reachableBy = <C extends { requiredTier: AgentTier }>(capabilities: C[], tier: AgentTier): C[] =>
  capabilities.filter((c) => tierRank(c.requiredTier) <= tierRank(tier));
