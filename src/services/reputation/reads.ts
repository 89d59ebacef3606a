/**
 * Reputation reads (docs/reputation.md "Reads"): a subject's tier, its rank and the gates the tier sets, looked up by
 * wallet, by subject id or by agent. Black-box: the record behind the tier and the standings behind the rank are
 * never part of an answer.
 */
import { sql, type Kysely } from 'kysely';
import { isIdentityKey, subjectIdOf, subjectKeyFromId, subjectValueOf, type SubjectKey } from '../../core/reputation/subject.ts';
import { gatesOf, type ReputationTier, type TierGates } from '../../core/reputation/tiers.ts';
import type { DB } from '../../db/schema.ts';
import type { ReputationDeps } from './deps.ts';
import { currentSubjectKey, isKnownWallet, isLiveSubject, walletsOfSubject } from './subjects.ts';

export interface ReputationView {
  subjectId: string;
  subjectKind: 'wallet' | 'identity';
  /** The wallet asked about (lowercase); null for a read by subject. */
  walletAddress: string | null;
  /** Wallets under the subject now (1 for a wallet linked to nothing). */
  linkedWalletCount: number;
  tier: ReputationTier;
  /** When the subject reached its tier; null while the fold has not met it (tier new). */
  tierSince: string | null;
  /** 1-based place among subjects with a record (tier first); null without a record. */
  rank: number | null;
  gates: TierGates;
  /** The last fold that touched the subject; null when none has. */
  updatedAt: string | null;
}

/** The view of a live subject; `wallet` is the alias it was asked by. */
export async function viewOf(deps: Pick<ReputationDeps, 'db' | 'freeFillsPerMonth'>, key: SubjectKey, wallet: string | null): Promise<ReputationView> {
  const { db } = deps;
  const row = await db.selectFrom('reputation_subjects').select(['tier', 'tier_rank', 'overall_standing', 'tier_since', 'updated_at']).where('subject_key', '=', key).executeTakeFirst();
  const tier = row?.tier ?? 'new';
  return {
    subjectId: subjectIdOf(key),
    subjectKind: isIdentityKey(key) ? 'identity' : 'wallet',
    walletAddress: wallet?.toLowerCase() ?? null,
    linkedWalletCount: (await walletsOfSubject(db, key)).length,
    tier,
    tierSince: row?.tier_since.toISOString() ?? null,
    rank: row ? await overallRank(db, key, row.tier_rank, row.overall_standing) : null,
    gates: gatesOf(tier, deps.freeFillsPerMonth),
    updatedAt: row?.updated_at.toISOString() ?? null,
  };
}

/** 1 + the subjects ordered before it: higher tier, then higher overall standing, then the key. */
async function overallRank(db: Kysely<DB>, key: string, tierRank: number, overall: string): Promise<number> {
  const row = await db
    .selectFrom('reputation_subjects')
    .select(sql<string>`COUNT(*)::text`.as('n'))
    .where((eb) =>
      eb.or([
        eb('tier_rank', '>', tierRank),
        eb.and([eb('tier_rank', '=', tierRank), eb('overall_standing', '>', overall)]),
        eb.and([eb('tier_rank', '=', tierRank), eb('overall_standing', '=', overall), eb('subject_key', '<', key)]),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n) + 1;
}

/** A wallet's reputation (its subject's), or null for a wallet nothing is known of. */
export async function walletReputation(deps: Pick<ReputationDeps, 'db' | 'freeFillsPerMonth'>, wallet: string): Promise<ReputationView | null> {
  const key = await currentSubjectKey(deps.db, wallet);
  if (!isIdentityKey(key) && !(await isKnownWallet(deps.db, wallet))) return null;
  return viewOf(deps, key, wallet);
}

/** A subject's reputation by its published id, or null for an id not issued here or a subject that ended. */
export async function subjectReputation(deps: Pick<ReputationDeps, 'db' | 'freeFillsPerMonth'>, subjectId: string): Promise<ReputationView | null> {
  const key = subjectKeyFromId(subjectId);
  if (!key || !(await isLiveSubject(deps.db, key))) return null;
  return viewOf(deps, key, null);
}

/** An agent's reputation: its bound wallet's. Null for an unknown agent or one without a wallet. */
export async function agentReputation(deps: Pick<ReputationDeps, 'db' | 'freeFillsPerMonth'>, agentId: string): Promise<(ReputationView & { agentId: string }) | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(agentId)) return null;
  const agent = await deps.db.selectFrom('agents').select(['id', 'wallet_address']).where('id', '=', agentId.toLowerCase()).executeTakeFirst();
  if (!agent?.wallet_address) return null;
  return { agentId: agent.id, ...(await viewOf(deps, await currentSubjectKey(deps.db, agent.wallet_address), agent.wallet_address)) };
}

/** Each wallet's reputation, in the order asked (null for a wallet nothing is known of). */
export async function batchReputation(deps: Pick<ReputationDeps, 'db' | 'freeFillsPerMonth'>, wallets: readonly string[]): Promise<{ walletAddress: string; reputation: ReputationView | null }[]> {
  const out: { walletAddress: string; reputation: ReputationView | null }[] = [];
  const seen = new Map<string, ReputationView | null>();
  for (const w of wallets) {
    const lower = w.toLowerCase();
    if (!seen.has(lower)) seen.set(lower, await walletReputation(deps, lower));
    out.push({ walletAddress: lower, reputation: seen.get(lower)! });
  }
  return out;
}

/** The representative wallet of a subject: an identity's root, or the wallet. */
export async function representativeWallet(db: Kysely<DB>, key: SubjectKey): Promise<string> {
  if (!isIdentityKey(key)) return subjectValueOf(key);
  const identity = await db.selectFrom('identities').select('root_wallet').where('id', '=', subjectValueOf(key)).executeTakeFirst();
  return identity?.root_wallet ?? (await walletsOfSubject(db, key))[0] ?? '';
}
