/**
 * A vote session as published (GET /resolution/votes/{sessionId}): the round's deadline and status, the verdict the
 * resolver recorded, and every ballot with its signature, so anyone can recount it (docs/resolution.md "Votes").
 */
import { problem } from '../../core/error-codes.ts';
import { parseVoteSessionId } from '../../core/resolution/votes.ts';
import { resolutionRecordFromJson, type ResolutionRecord, type VerdictKindName } from '../../core/resolution/record.ts';
import { chainNow, type VoteDeps } from './deps.ts';

export interface BallotView {
  wallet: string;
  identityKey: string;
  outcome: number;
  signature: string;
  castAt: string;
}

export interface VoteSessionView {
  sessionId: string;
  chainId: number;
  market: string;
  resolver: string;
  round: number;
  /** The round's deadline; null for a round an integrity restart replaced. */
  voteDeadline: string | null;
  /** open: ballots are taken; counting: the deadline passed, the verdict is not on chain yet; closed; replaced (round 2 opened). */
  status: 'open' | 'counting' | 'closed' | 'replaced';
  quorum: number;
  verdict: { kind: VerdictKindName; ballotRoot: string; ballotCount: number } | null;
  ballots: BallotView[];
}

export type VoteSessionError = 'VOTE_SESSION_NOT_FOUND';

/** The session and the market's record, or VOTE_SESSION_NOT_FOUND. */
export async function sessionRecord(deps: VoteDeps, sessionId: string): Promise<{ market: string; round: number; record: ResolutionRecord }> {
  const id = parseVoteSessionId(sessionId);
  if (!id || id.chainId !== deps.chainId) throw problem('VOTE_SESSION_NOT_FOUND', `no vote session ${sessionId} on chain ${deps.chainId}`);
  const row = await deps.db.selectFrom('market_resolutions').select('record').where('chain_id', '=', deps.chainId).where('market', '=', id.market).executeTakeFirst();
  const record = row ? resolutionRecordFromJson(row.record) : null;
  if (!record || record.voteRound < id.round || record.voteDeadline === null) throw problem('VOTE_SESSION_NOT_FOUND', `no vote session ${sessionId}`);
  return { market: id.market, round: id.round, record };
}

export async function voteSession(deps: VoteDeps, sessionId: string): Promise<VoteSessionView> {
  const { market, round, record } = await sessionRecord(deps, sessionId);
  const ballots = await deps.db.selectFrom('vote_ballots').selectAll().where('chain_id', '=', deps.chainId).where('market', '=', market).where('round', '=', round).orderBy('cast_at').orderBy('wallet_address').execute();
  const current = record.voteRound === round;
  const decided = current && record.verdict !== null;
  const open = current && record.phase === 'voting' && record.voteDeadline!.getTime() > (await chainNow(deps)).getTime();
  return {
    sessionId,
    chainId: deps.chainId,
    market,
    resolver: deps.resolver.toLowerCase(),
    round,
    voteDeadline: current ? record.voteDeadline!.toISOString() : null,
    status: !current ? 'replaced' : decided ? 'closed' : open ? 'open' : 'counting',
    quorum: deps.quorum,
    verdict: decided ? { kind: record.verdict!, ballotRoot: record.ballotRoot!, ballotCount: record.ballotCount! } : null,
    ballots: ballots.map((b) => ({ wallet: b.wallet_address, identityKey: b.identity_key, outcome: b.outcome, signature: b.signature, castAt: b.cast_at.toISOString() })),
  };
}
