/**
 * Reputation leaderboards (docs/reputation.md "Ranks"): subjects in the order of a role's hidden standing, answered as
 * rank and tier only. All time reads the standings the fold keeps per subject (indexed); 7 and 30 days sum the same
 * counts over the wallets' days of the period (STANDING_WEIGHTS, mirrored here in SQL) and rank by the sum. The tier
 * shown is the subject's tier now.
 */
import { sql, type RawBuilder } from 'kysely';
import { STANDING_WEIGHTS, type LeaderboardRole } from '../../core/reputation/standing.ts';
import { subjectIdOf, type SubjectKey } from '../../core/reputation/subject.ts';
import type { ReputationTier } from '../../core/reputation/tiers.ts';
import type { ReputationDeps } from './deps.ts';
import { representativeWallet } from './subjects.ts';

export type LeaderboardPeriod = '7d' | '30d' | 'all';

export interface ReputationLeaderboardEntry {
  rank: number;
  subjectId: string;
  /** An identity's root wallet, or the wallet of a wallet subject (lowercase). */
  walletAddress: string;
  tier: ReputationTier;
}

export interface ReputationLeaderboardPage {
  role: LeaderboardRole;
  period: LeaderboardPeriod;
  entries: ReputationLeaderboardEntry[];
  limit: number;
  offset: number;
  /** Subjects ranked in this role and period. */
  total: number;
  hasMore: boolean;
}

const W = STANDING_WEIGHTS;
/** The creator and juror standings as SQL over a period's summed counts (STANDING_WEIGHTS; core computes the same). */
const CREATOR_OF_C = `(${W.creator.resolvedClean} * c.resolved_clean + ${W.creator.marketsCreated} * c.markets_created + (${W.creator.slashedCreation}) * (c.disputes_lost + c.creator_absences))`;
const JUROR_OF_C = `(${W.juror.ballotsAgreed} * c.ballots_agreed + (${W.juror.ballotsDisagreed}) * c.ballots_disagreed)`;

const ACTIVE: Record<LeaderboardRole, RawBuilder<unknown>> = {
  creator: sql`markets_created + resolved_clean + disputes_lost + creator_absences > 0`,
  juror: sql`ballots_agreed + ballots_disagreed > 0`,
  trader: sql`trades > 0`,
  overall: sql`TRUE`,
};

const ORDER: Record<LeaderboardRole, RawBuilder<unknown>> = {
  creator: sql`creator_standing DESC, subject_key`,
  juror: sql`juror_standing DESC, subject_key`,
  trader: sql`trader_standing DESC, trades DESC, subject_key`,
  overall: sql`tier_rank DESC, overall_standing DESC, subject_key`,
};

const PERIOD_DAYS: Record<Exclude<LeaderboardPeriod, 'all'>, number> = { '7d': 7, '30d': 30 };

export async function reputationLeaderboard(
  deps: Pick<ReputationDeps, 'db' | 'clock'>,
  p: { role: LeaderboardRole; period: LeaderboardPeriod; limit: number; offset: number },
): Promise<ReputationLeaderboardPage> {
  const { db } = deps;
  // The ranked set as a derived table with the standing columns, whichever the period.
  const ranked =
    p.period === 'all'
      ? sql`SELECT subject_key, tier, tier_rank, trades, markets_created, resolved_clean, disputes_lost, creator_absences, ballots_agreed, ballots_disagreed,
              creator_standing, juror_standing, trader_standing, overall_standing FROM reputation_subjects`
      : periodTable(deps, p.period);
  const where = ACTIVE[p.role];
  const rows = await sql<{ subject_key: string; tier: ReputationTier }>`
    SELECT subject_key, tier FROM (${ranked}) AS r WHERE ${where} ORDER BY ${ORDER[p.role]}
    LIMIT ${p.limit + 1} OFFSET ${String(p.offset)}::bigint`.execute(db);
  const total = await sql<{ n: string }>`SELECT COUNT(*)::text AS n FROM (${ranked}) AS r WHERE ${where}`.execute(db);
  const page = rows.rows.slice(0, p.limit);
  const entries: ReputationLeaderboardEntry[] = [];
  for (const [i, r] of page.entries()) {
    const key = r.subject_key as SubjectKey;
    entries.push({ rank: p.offset + i + 1, subjectId: subjectIdOf(key), walletAddress: await representativeWallet(db, key), tier: r.tier });
  }
  return { role: p.role, period: p.period, entries, limit: p.limit, offset: p.offset, total: Number(total.rows[0]!.n), hasMore: rows.rows.length > p.limit };
}

/** The counts of the last `period` UTC days (today included) per subject, with their standings and current tier. */
function periodTable(deps: Pick<ReputationDeps, 'clock'>, period: Exclude<LeaderboardPeriod, 'all'>): RawBuilder<unknown> {
  const today = deps.clock.now();
  const from = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (PERIOD_DAYS[period] - 1))).toISOString().slice(0, 10);
  return sql`
    SELECT c.subject_key, COALESCE(s.tier, 'new') AS tier, COALESCE(s.tier_rank, 1) AS tier_rank, c.trades, c.markets_created, c.resolved_clean,
      c.disputes_lost, c.creator_absences, c.ballots_agreed, c.ballots_disagreed,
      ${sql.raw(CREATOR_OF_C)} AS creator_standing, ${sql.raw(JUROR_OF_C)} AS juror_standing, c.volume_micros AS trader_standing,
      ${sql.raw(CREATOR_OF_C)} + ${sql.raw(JUROR_OF_C)} + ${sql.raw(String(W.overall.tradesEach))} * c.trades + div(c.volume_micros, ${sql.raw(String(W.overall.volumePerMicros))}) AS overall_standing
    FROM (
      SELECT w.subject_key, SUM(d.trades) AS trades, SUM(d.volume_micros) AS volume_micros, SUM(d.markets_created) AS markets_created,
        SUM(d.resolved_clean) AS resolved_clean, SUM(d.disputes_lost) AS disputes_lost, SUM(d.creator_absences) AS creator_absences,
        SUM(d.ballots_agreed) AS ballots_agreed, SUM(d.ballots_disagreed) AS ballots_disagreed
      FROM reputation_wallet_days d JOIN reputation_wallets w ON w.wallet = d.wallet
      WHERE d.day >= ${from}::date
      GROUP BY w.subject_key
    ) AS c LEFT JOIN reputation_subjects s ON s.subject_key = c.subject_key`;
}

