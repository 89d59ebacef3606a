/**
 * Human votes on a market's resolution (docs/resolution.md "Votes"): ballots cast into the round the keeper opened,
 * the published session, and the verdict the keeper records at the deadline; and a market's resolution record. This binds the operations of this folder.
 */
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { ballotById, castBallot, type CastBallotInput } from './cast-ballot.ts';
import type { VoteDeps } from './deps.ts';
import { marketResolution, type MarketResolutionView } from './market-resolution.ts';
import { freezeVerdict, type FrozenVerdict } from './verdict.ts';
import { voteSession, type BallotView, type VoteSessionView } from './vote-session.ts';

export type { BallotView, VoteSessionView } from './vote-session.ts';
export type { VoteDeps } from './deps.ts';
export type { MarketResolutionView } from './market-resolution.ts';

export type CastBallot = BallotView & { id: string; sessionId: string };

export interface VoteService {
  /** Counted ballots a binding verdict needs (VOTE_QUORUM). */
  readonly quorum: number;
  /** The resolver's windows, as configured and set on chain at start (seconds). */
  readonly windows: { challengeWindowSeconds: number; voteWindowSeconds: number };
  cast(input: CastBallotInput, recordEffect?: EffectRecorder): Promise<CastBallot>;
  ballot(id: string): Promise<CastBallot>;
  session(sessionId: string): Promise<VoteSessionView>;
  /** Counts a round past its deadline once and keeps the tally (later ballots are refused); the same on every call. */
  verdict(market: string, round: number, outcomeCount: number): Promise<FrozenVerdict>;
  /** A market's state and resolution record (MARKET_NOT_FOUND for a market we did not register). */
  market(address: string): Promise<MarketResolutionView>;
}

export function createVoteService(deps: VoteDeps): VoteService {
  return {
    quorum: deps.quorum,
    windows: deps.windows,
    cast: (input, recordEffect) => castBallot(deps, input, recordEffect),
    ballot: (id) => ballotById(deps, id),
    session: (sessionId) => voteSession(deps, sessionId),
    verdict: (market, round, outcomeCount) => freezeVerdict(deps, market, round, outcomeCount),
    market: (address) => marketResolution(deps, address),
  };
}
