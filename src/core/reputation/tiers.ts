/**
 * The reputation tier model (docs/reputation.md): what a subject's record is made of, the four tiers, the rules that
 * move a subject between them (with hysteresis: the bar to enter a tier is higher than the bar to keep it), and the
 * capability gates each tier opens or closes. Pure: the fold (src/services/reputation/) supplies the record.
 *
 * Reputation is black-box: reads publish the tier, the rank and the gates, never the record's numbers as a score.
 */
import { MAX_LIVE_MARKETS_PER_CREATOR } from '../markets/fees.ts';

/** Lowest first. */
export const REPUTATION_TIERS = ['restricted', 'new', 'established', 'trusted'] as const;
export type ReputationTier = (typeof REPUTATION_TIERS)[number];
/** 0 restricted, 1 new, 2 established, 3 trusted. */
export const reputationTierRank = (t: ReputationTier): number => REPUTATION_TIERS.indexOf(t);

/**
 * A subject's record: the facts the indexer, the ledger and the resolution keep, summed over the subject's wallets.
 * Counts are whole events; `volumeMicros` is trade volume at face value in millionths of a collateral token
 * (1 USDC, 1 PM and 1 play dollar are each 1_000_000), fees excluded.
 */
export interface ReputationRecord {
  /** LMSR trades the wallets sent, plus order-book fills they were maker or taker of. */
  trades: number;
  volumeMicros: bigint;
  marketsCreated: number;
  /** Markets the subject created that resolved (or went void by resolution) without its bond being slashed. */
  resolvedClean: number;
  /** Created markets whose proposal a dispute overturned: the creation bond was slashed. */
  disputesLost: number;
  /** Created markets the creator let pass resolveBy without a proposal: the creation bond was slashed. */
  creatorAbsences: number;
  /** Challenges the subject filed that the final outcome upheld. */
  challengesUpheld: number;
  /** Challenges the subject filed that the final outcome overturned: the challenge bond went to the creator. */
  challengesLost: number;
  /** Ballots cast in rounds whose verdict was binding, for the verdict's outcome… */
  ballotsAgreed: number;
  /** …and for another outcome. */
  ballotsDisagreed: number;
  /** A live human attestation for one of the subject's wallets (docs/identity.md "Verified humans"). */
  humanVerified: boolean;
}

export const EMPTY_RECORD: ReputationRecord = {
  trades: 0,
  volumeMicros: 0n,
  marketsCreated: 0,
  resolvedClean: 0,
  disputesLost: 0,
  creatorAbsences: 0,
  challengesUpheld: 0,
  challengesLost: 0,
  ballotsAgreed: 0,
  ballotsDisagreed: 0,
  humanVerified: false,
};

/** One micro-unit per millionth of a token: 100 tokens = 100_000_000. */
const TOKENS = 1_000_000n;

/** A bar of activity: any one of these records clears it. Volume in whole tokens at face value. */
interface ActivityBar {
  trades: number;
  volumeTokens: bigint;
  resolvedClean: number;
  ballotsAgreed: number;
}

/**
 * The thresholds, in one place (published by GET /discover/rules). Rates are basis points of the subject's bonded
 * outcomes (markets it created that finished, challenges it filed that were decided) or of its ballots in binding
 * rounds; "more than" and "at most" are as written.
 */
export const TIER_RULES = {
  established: {
    enter: { trades: 10, volumeTokens: 100n, resolvedClean: 3, ballotsAgreed: 3 } satisfies ActivityBar,
    keep: { trades: 8, volumeTokens: 80n, resolvedClean: 2, ballotsAgreed: 2 } satisfies ActivityBar,
  },
  trusted: {
    enter: { trades: 100, volumeTokens: 10_000n, resolvedClean: 10, ballotsAgreed: 10 } satisfies ActivityBar,
    keep: { trades: 80, volumeTokens: 8_000n, resolvedClean: 8, ballotsAgreed: 8 } satisfies ActivityBar,
    /** Slashed bonds at most this share of bonded outcomes to enter; more than keepSlashBps leaves trusted. */
    enterSlashBps: 500,
    keepSlashBps: 1_000,
  },
  restricted: {
    /** Entered with at least minSlashes slashed bonds making more than slashBps of the bonded outcomes… */
    minSlashes: 1,
    slashBps: 2_500,
    /** …or at least minDisagreed ballots against binding verdicts making more than disagreeBps of them. */
    minDisagreed: 3,
    disagreeBps: 5_000,
    /** Left only once slashed bonds are at most leaveSlashBps and disagreeing ballots at most leaveDisagreeBps. */
    leaveSlashBps: 1_000,
    leaveDisagreeBps: 3_333,
  },
} as const;

/** Why a subject's tier changed (reputation events, kind tier). */
export type TierReason =
  | 'SLASH_RATE'
  | 'JUROR_DISAGREEMENT'
  | 'RESTRICTION_LIFTED'
  | 'CREATOR_RECORD'
  | 'JUROR_RECORD'
  | 'TRADING_RECORD'
  | 'HUMAN_VERIFICATION_LOST'
  | 'RECORD_BELOW_FLOOR'
  /** A subject formed by linking or unlinking wallets starts from the tier they bring (a restriction comes along). */
  | 'SUBJECT_FORMED';

export const TIER_REASONS: readonly TierReason[] = [
  'SLASH_RATE',
  'JUROR_DISAGREEMENT',
  'RESTRICTION_LIFTED',
  'CREATOR_RECORD',
  'JUROR_RECORD',
  'TRADING_RECORD',
  'HUMAN_VERIFICATION_LOST',
  'RECORD_BELOW_FLOOR',
  'SUBJECT_FORMED',
];

/** Slashed bonds: creation bonds lost to a dispute or to absence, and challenge bonds lost. */
export const slashesOf = (r: ReputationRecord): number => r.disputesLost + r.creatorAbsences + r.challengesLost;
/** Outcomes the subject had a bond on: its finished markets and its decided challenges. */
export const bondedOf = (r: ReputationRecord): number => r.resolvedClean + r.disputesLost + r.creatorAbsences + r.challengesUpheld + r.challengesLost;
const juryOf = (r: ReputationRecord): number => r.ballotsAgreed + r.ballotsDisagreed;

/** part / whole > bps / 10000, in integers (false when whole is 0). */
const above = (part: number, whole: number, bps: number): boolean => whole > 0 && part * 10_000 > whole * bps;
/** part / whole ≤ bps / 10000 (true when whole is 0). */
const atMost = (part: number, whole: number, bps: number): boolean => part * 10_000 <= whole * bps;

/** Which record clears the bar, creator first, then juror, then trading; null when none does. */
function recordClearing(r: ReputationRecord, bar: ActivityBar): 'CREATOR_RECORD' | 'JUROR_RECORD' | 'TRADING_RECORD' | null {
  if (r.resolvedClean >= bar.resolvedClean) return 'CREATOR_RECORD';
  if (r.ballotsAgreed >= bar.ballotsAgreed) return 'JUROR_RECORD';
  if (r.trades >= bar.trades && r.volumeMicros >= bar.volumeTokens * TOKENS) return 'TRADING_RECORD';
  return null;
}

/** The restriction the record calls for on a subject not restricted now (slash rate first), or null. */
function restrictionOf(r: ReputationRecord): 'SLASH_RATE' | 'JUROR_DISAGREEMENT' | null {
  const R = TIER_RULES.restricted;
  const slashes = slashesOf(r);
  if (slashes >= R.minSlashes && above(slashes, bondedOf(r), R.slashBps)) return 'SLASH_RATE';
  if (r.ballotsDisagreed >= R.minDisagreed && above(r.ballotsDisagreed, juryOf(r), R.disagreeBps)) return 'JUROR_DISAGREEMENT';
  return null;
}

/** Whether a restricted subject's record now lets it leave the restriction. */
function mayLeaveRestriction(r: ReputationRecord): boolean {
  const R = TIER_RULES.restricted;
  return atMost(slashesOf(r), bondedOf(r), R.leaveSlashBps) && atMost(r.ballotsDisagreed, juryOf(r), R.leaveDisagreeBps);
}

export interface TierStep {
  tier: ReputationTier;
  /** Why it moved; null when the tier stays. */
  reason: TierReason | null;
}

/**
 * The tier a subject at `current` holds with record `r`. Entering a tier takes its `enter` bar; holding it takes
 * only its `keep` bar, so a record hovering at a threshold does not flap. Applying it again to its own answer changes
 * nothing (a fold that runs twice moves nothing twice).
 */
export function nextTier(current: ReputationTier, r: ReputationRecord): TierStep {
  const step = (tier: ReputationTier, reason: TierReason): TierStep => (tier === current ? { tier, reason: null } : { tier, reason });
  if (current === 'restricted') {
    if (!mayLeaveRestriction(r)) return { tier: 'restricted', reason: null };
    const standing = ladder('new', r);
    return step(standing.tier, 'RESTRICTION_LIFTED');
  }
  const restriction = restrictionOf(r);
  if (restriction) return step('restricted', restriction);
  const standing = ladder(current, r);
  return step(standing.tier, standing.reason);
}

/** new, established or trusted, from `current` (not restricted). */
function ladder(current: 'new' | 'established' | 'trusted', r: ReputationRecord): { tier: ReputationTier; reason: TierReason } {
  const T = TIER_RULES.trusted;
  const E = TIER_RULES.established;
  const slashes = slashesOf(r);
  const bonded = bondedOf(r);
  let demotion: TierReason = 'RECORD_BELOW_FLOOR';
  if (current === 'trusted') {
    if (!r.humanVerified) demotion = 'HUMAN_VERIFICATION_LOST';
    else if (atMost(slashes, bonded, T.keepSlashBps) && recordClearing(r, T.keep)) return { tier: 'trusted', reason: 'RECORD_BELOW_FLOOR' };
  }
  const trusted = r.humanVerified && atMost(slashes, bonded, T.enterSlashBps) ? recordClearing(r, T.enter) : null;
  if (trusted) return { tier: 'trusted', reason: trusted };
  if (current !== 'new' && recordClearing(r, E.keep)) return { tier: 'established', reason: demotion };
  const established = recordClearing(r, E.enter);
  if (established) return { tier: 'established', reason: established };
  return { tier: 'new', reason: demotion };
}

/** What a tier allows or limits. */
export interface TierGates {
  /** Live (open or closed) markets a creator of this tier may have at once. */
  maxLiveMarkets: number;
  /** Free order-book fills per UTC month (purchased fills come on top and never expire). */
  freeFillsPerMonth: number;
  /** Whether a wallet of this tier may cast a ballot (a verified human identity is required besides). */
  mayVote: boolean;
}

/** Per tier: the live-market cap, the share of the operator's free fills (percent), voting. */
export const TIER_GATES: Record<ReputationTier, { maxLiveMarkets: number; freeFillsPercent: number; mayVote: boolean }> = {
  restricted: { maxLiveMarkets: 2, freeFillsPercent: 10, mayVote: false },
  new: { maxLiveMarkets: MAX_LIVE_MARKETS_PER_CREATOR, freeFillsPercent: 100, mayVote: true },
  established: { maxLiveMarkets: 30, freeFillsPercent: 100, mayVote: true },
  trusted: { maxLiveMarkets: 50, freeFillsPercent: 200, mayVote: true },
};

/** The gates of `tier` under the operator's free fills per month (FILLS_FREE_PER_MONTH), rounded down. */
export function gatesOf(tier: ReputationTier, freeFillsPerMonth: number): TierGates {
  const g = TIER_GATES[tier];
  return { maxLiveMarkets: g.maxLiveMarkets, freeFillsPerMonth: Math.floor((freeFillsPerMonth * g.freeFillsPercent) / 100), mayVote: g.mayVote };
}

/** `amount` base units of a token with `decimals` decimals, in millionths of a whole token (rounded down). */
export function faceValueMicros(amount: bigint, decimals: number): bigint {
  return decimals >= 6 ? amount / 10n ** BigInt(decimals - 6) : amount * 10n ** BigInt(6 - decimals);
}

/** How a subject enters and keeps each tier, in words built from TIER_RULES (GET /discover/rules publishes it). */
export function tierRuleText(): Record<ReputationTier, string> {
  const { established: E, trusted: T, restricted: R } = TIER_RULES;
  const bar = (b: ActivityBar) => `${b.resolvedClean} markets resolved without a slashed bond, or ${b.ballotsAgreed} ballots agreeing with binding verdicts, or ${b.trades} trades with ${b.volumeTokens} tokens of volume at face value`;
  const pct = (bps: number) => `${bps / 100} %`;
  return {
    restricted: `entered when slashed bonds (disputes lost, absences past resolveBy, challenges lost) are at least ${R.minSlashes} and more than ${pct(R.slashBps)} of the outcomes the subject had a bond on, or when at least ${R.minDisagreed} ballots went against binding verdicts and they are more than ${pct(R.disagreeBps)} of its ballots in binding rounds; left once slashed bonds are at most ${pct(R.leaveSlashBps)} and ballots against verdicts at most ${pct(R.leaveDisagreeBps)}`,
    new: 'every subject starts here; a subject that no longer keeps a higher tier returns here',
    established: `entered with any of: ${bar(E.enter)}; kept with any of: ${bar(E.keep)}`,
    trusted: `a verified human identity with slashed bonds at most ${pct(T.enterSlashBps)} of its bonded outcomes and any of: ${bar(T.enter)}; kept while verified, with slashed bonds at most ${pct(T.keepSlashBps)} and any of: ${bar(T.keep)}`,
  };
}
