/**
 * The points of the two boards that rank people by what they do besides trading (docs/leaderboard.md): creators by
 * the markets they resolved without losing a dispute, the disputes they lost and the volume their markets drew;
 * voters by the ballots they cast and how often they agreed with a binding verdict.
 */

export interface CreatorStats {
  marketsCreated: number;
  /** Markets that became final without the creator being slashed (no dispute went against them). */
  resolvedClean: number;
  /** Markets whose final outcome went against the creator (slashed: a dispute lost, or no proposal by resolveBy). */
  disputesLost: number;
  /** Volume of trades in the creator's markets, USD micro-dollars. */
  volumeAttracted: bigint;
}

export const CREATOR_POINTS = { resolvedClean: 100n, disputeLost: -300n, perThousandDollars: 1n } as const;

/** 100 per clean resolution, −300 per dispute lost, 1 per whole $1,000 of volume attracted. */
export const creatorPoints = (s: CreatorStats): bigint =>
  CREATOR_POINTS.resolvedClean * BigInt(s.resolvedClean) + CREATOR_POINTS.disputeLost * BigInt(s.disputesLost) + CREATOR_POINTS.perThousandDollars * (s.volumeAttracted / 1_000_000_000n);

export interface VoterStats {
  ballotsCast: number;
  /** Ballots whose round ended in a binding verdict for the same outcome. */
  agreed: number;
  /** Ballots whose round ended in a binding verdict for another outcome. */
  disagreed: number;
}

export const VOTER_POINTS = { ballot: 1n, agreed: 10n, disagreed: -10n } as const;

/** 1 per ballot, +10 per agreement with a binding verdict, −10 per disagreement. */
export const voterPoints = (s: VoterStats): bigint => VOTER_POINTS.ballot * BigInt(s.ballotsCast) + VOTER_POINTS.agreed * BigInt(s.agreed) + VOTER_POINTS.disagreed * BigInt(s.disagreed);
