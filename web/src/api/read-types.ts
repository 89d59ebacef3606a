// The parts of the discover, profile and market-extra answers the read pages use (full shapes: the OpenAPI documents).
// Money stays a decimal string of base units (or USD micro-dollars) until it is formatted for the screen.

export const REPUTATION_TIERS = ['restricted', 'new', 'established', 'trusted'] as const;
export type ReputationTier = (typeof REPUTATION_TIERS)[number];

export interface Thesis {
  rank: number;
  market: string;
  chainId: number;
  question: string;
  category: string;
  /** The category in the asked locale, from the server. */
  categoryLabel: string;
  collateral: { symbol: string; decimals: number };
  outcomes: { index: number; label: string; price: string }[];
  closeTime: string;
  volume24h: string;
  kinds: string[];
  /** The thesis in the asked locale. */
  text: string;
}
export interface Theses {
  locale: string;
  dir: 'ltr' | 'rtl';
  chainId: number;
  generatedAt: string;
  theses: Thesis[];
}
export interface Chains {
  chains: { chainId: number; name: string; enabled: boolean }[];
}

export interface Profile {
  address: string;
  chainId: number;
  agent: { id: string; name: string; label: 'AI' | null } | null;
  trackRecord: {
    marketsCreated: number;
    marketsLive: number;
    marketsResolved: number;
    marketsResolvedClean: number;
    disputes: { lost: number; creatorAbsences: number; challengesUpheld: number; challengesLost: number };
    ballots: { agreedWithVerdict: number; againstVerdict: number };
    trades: number;
    volume: { symbol: string; trades: number; volume: string }[];
  };
  /** Tier and gates, never a score; null for a wallet nothing is known of. */
  reputation: { tier: ReputationTier; tierSince: string | null; linkedWalletCount: number } | null;
}

/** USD micro-dollars throughout. */
export interface PnlHistory {
  walletAddress: string;
  agentName: string | null;
  asOf: string;
  points: { date: string; realizedPnl: string; cumulativeRealizedPnl: string; volume: string; trades: number }[];
  totals: { realizedPnl: string; unrealizedPnl: string; pnl: string; volume: string; trades: number; maxDrawdown: string };
}

export interface Holders {
  holders: { index: number; label: string; outstandingShares: string; holderCount: number; top: { address: string; shares: string }[] }[];
  holderCount: number;
  /** Collateral base units. */
  openInterest: string;
}

export interface Comment {
  id: string;
  author: string;
  body: string;
  createdAt: string;
  /** The author's shares per outcome, base units. */
  position: string[];
  reputation: { subjectId: string; tier: ReputationTier };
}
export interface Comments {
  comments: Comment[];
  nextCursor: string | null;
}

export interface Resolution {
  state: string;
  chainTime: string;
  phase: 'proposed' | 'disputed' | 'voting' | 'council' | 'resolved' | null;
  deadlines: { resolveFrom: string; resolveBy: string; closeTime: string; challengeDeadline: string | null; voteDeadline: string | null };
  /** outcome: 1-indexed; 0 is void. */
  proposal: { outcome: number; isVoid: boolean; proposer: string; proposedAt: string | null; challengeDeadline: string } | null;
  /** bond: PM base units. */
  challenge: { challenger: string; counterOutcome: number; bond: string } | null;
  session: { round: number; voteDeadline: string | null; status: 'open' | 'counting' | 'closed' | 'replaced'; ballotCount: number; quorum: number } | null;
  council: { phase: 'opened' | 'decided' | 'executed' | null; threshold: number; members: string[]; signatures: { signer: string; outcome: number; signedAt: string }[] };
  finalOutcome: number | null;
  creatorSlashed: boolean | null;
}
