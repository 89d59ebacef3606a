/**
 * The hidden orderings behind reputation ranks (docs/reputation.md "Ranks"). Reputation is black-box: a read
 * publishes a subject's rank in these orders and its tier, never these numbers. Each is a linear sum of record
 * counts, so the fold keeps it per subject and a period's leaderboard sums the same counts over its days in SQL
 * (src/services/reputation/leaderboard.ts mirrors STANDING_WEIGHTS).
 */
import type { ReputationRecord } from './tiers.ts';

export const LEADERBOARD_ROLES = ['creator', 'juror', 'trader', 'overall'] as const;
export type LeaderboardRole = (typeof LEADERBOARD_ROLES)[number];

/** Weights of each record count; volume counts per 100 whole tokens (100_000_000 micro-units) in the overall order. */
export const STANDING_WEIGHTS = {
  creator: { resolvedClean: 100n, marketsCreated: 1n, slashedCreation: -300n },
  juror: { ballotsAgreed: 10n, ballotsDisagreed: -15n },
  overall: { tradesEach: 1n, volumePerMicros: 100_000_000n },
} as const;

export interface Standings {
  creator: bigint;
  juror: bigint;
  /** Volume in micro-units (ties: trades). */
  trader: bigint;
  overall: bigint;
}

/** The subject's place in each order (higher first; overall comes after the tier). */
export function standingsOf(r: ReputationRecord): Standings {
  const W = STANDING_WEIGHTS;
  const creator = W.creator.resolvedClean * BigInt(r.resolvedClean) + W.creator.marketsCreated * BigInt(r.marketsCreated) + W.creator.slashedCreation * BigInt(r.disputesLost + r.creatorAbsences);
  const juror = W.juror.ballotsAgreed * BigInt(r.ballotsAgreed) + W.juror.ballotsDisagreed * BigInt(r.ballotsDisagreed);
  const overall = creator + juror + W.overall.tradesEach * BigInt(r.trades) + r.volumeMicros / W.overall.volumePerMicros;
  return { creator, juror, trader: r.volumeMicros, overall };
}

/** Whether the subject has any record in the role (a leaderboard of a role ranks only those). */
export function activeIn(role: LeaderboardRole, r: Omit<ReputationRecord, 'humanVerified'>): boolean {
  switch (role) {
    case 'creator':
      return r.marketsCreated + r.resolvedClean + r.disputesLost + r.creatorAbsences > 0;
    case 'juror':
      return r.ballotsAgreed + r.ballotsDisagreed > 0;
    case 'trader':
      return r.trades > 0;
    case 'overall':
      return true;
  }
}
