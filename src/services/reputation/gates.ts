/**
 * Where a tier bites (docs/reputation.md "Gates"): the live-market cap of the create loop, the free fills of the
 * order loop and GET /me, and the vote. Each reads the tier of the wallet's subject as the last fold left it and
 * answers the gate of TIER_GATES; the callers enforce it where they already enforce the default.
 */
import type { Kysely } from 'kysely';
import { gatesOf, REPUTATION_TIERS, type ReputationTier, type TierGates } from '../../core/reputation/tiers.ts';
import type { DB } from '../../db/schema.ts';
import { tierOfWallet } from './subjects.ts';

export interface WalletGates extends TierGates {
  tier: ReputationTier;
}

export interface ReputationGates {
  /** The tier and gates of a wallet's subject; `db` may be the caller's transaction. */
  ofWallet(wallet: string, db?: Kysely<DB>): Promise<WalletGates>;
  /** The free fills per month of an agent (its bound wallet's tier; the default without one). */
  freeFillsOfAgent(agentId: string, db?: Kysely<DB>): Promise<number>;
  /** The fewest free fills per month freeFillsOfAgent answers for any agent (the smallest tier's share). */
  readonly fewestFreeFills: number;
}

export function createReputationGates(deps: { db: Kysely<DB>; freeFillsPerMonth: number }): ReputationGates {
  const ofWallet = async (wallet: string, db: Kysely<DB> = deps.db): Promise<WalletGates> => {
    const tier = await tierOfWallet(db, wallet);
    return { tier, ...gatesOf(tier, deps.freeFillsPerMonth) };
  };
  return {
    ofWallet,
    fewestFreeFills: Math.min(...REPUTATION_TIERS.map((tier) => gatesOf(tier, deps.freeFillsPerMonth).freeFillsPerMonth)),
    async freeFillsOfAgent(agentId, db = deps.db) {
      const agent = await db.selectFrom('agents').select('wallet_address').where('id', '=', agentId).executeTakeFirst();
      if (!agent?.wallet_address) return gatesOf('new', deps.freeFillsPerMonth).freeFillsPerMonth;
      return (await ofWallet(agent.wallet_address, db)).freeFillsPerMonth;
    },
  };
}
