/**
 * The view every reputation read answers (docs/reputation.md "Reads"): a subject's tier, its rank and the gates the
 * tier sets. Black-box: the record behind the tier and the standings behind the rank are never part of an answer. The
 * reads themselves are one per file beside this one.
 */
import { sql, type Kysely } from 'kysely';
import { isIdentityKey, subjectIdOf, type SubjectKey } from '../../../core/reputation/subject.ts';
import { gatesOf, type ReputationTier, type TierGates } from '../../../core/reputation/tiers.ts';
import type { DB } from '../../../db/schema.ts';
import type { ReputationDeps } from '../deps.ts';
import { walletsOfSubject } from '../subjects.ts';

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
