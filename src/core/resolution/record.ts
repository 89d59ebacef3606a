/**
 * A market's resolution as the resolver's logs tell it (docs/resolution.md): the record folded from its logs in chain
 * order, the market state it puts the market in, and the outbox events each log announces. Pure: the indexer reads
 * the logs, stores them, and calls these inside its batch transaction.
 */
import type { MarketState } from '../markets/states.ts';
import { voteSessionId } from './votes.ts';

export type ResolutionPhase = 'proposed' | 'disputed' | 'voting' | 'council' | 'resolved';
export type ResolutionRoute = 'undisputed' | 'vote' | 'council';
export type VoteReasonName = 'dispute' | 'absent_creator' | 'integrity_restart';
export type VerdictKindName = 'binding' | 'no_quorum' | 'deadlock';

/** The resolver's enums by their on-chain index (IMarketResolver.sol). */
export const VOTE_REASONS: readonly VoteReasonName[] = ['dispute', 'absent_creator', 'integrity_restart'];
export const VERDICT_KINDS: readonly VerdictKindName[] = ['binding', 'no_quorum', 'deadlock'];
export const ROUTES: readonly (ResolutionRoute | null)[] = [null, 'undisputed', 'vote', 'council'];

/** One resolver log, decoded; `at` is its block's time. */
export type ResolutionLog = { at: Date } & (
  | { kind: 'proposed'; outcome: number; proposer: string; challengeDeadline: Date }
  | { kind: 'challenged'; challenger: string; counterOutcome: number; bond: bigint }
  | { kind: 'vote_opened'; round: number; voteDeadline: Date; reason: VoteReasonName }
  | { kind: 'vote_closed'; round: number; verdict: VerdictKindName; outcome: number; ballotRoot: string; ballotCount: number }
  | { kind: 'council_decided'; outcome: number; signers: string[] }
  | { kind: 'resolved'; outcome: number; route: ResolutionRoute; creatorSlashed: boolean }
);

export interface ResolutionRecord {
  phase: ResolutionPhase;
  proposedOutcome: number | null;
  proposer: string | null;
  proposedAt: Date | null;
  challengeDeadline: Date | null;
  challenger: string | null;
  counterOutcome: number | null;
  challengeBond: bigint | null;
  voteRound: number;
  voteReason: VoteReasonName | null;
  voteDeadline: Date | null;
  verdict: VerdictKindName | null;
  ballotRoot: string | null;
  ballotCount: number | null;
  finalOutcome: number | null;
  route: ResolutionRoute | null;
  creatorSlashed: boolean | null;
  finalizedAt: Date | null;
}

const EMPTY: ResolutionRecord = {
  phase: 'proposed',
  proposedOutcome: null,
  proposer: null,
  proposedAt: null,
  challengeDeadline: null,
  challenger: null,
  counterOutcome: null,
  challengeBond: null,
  voteRound: 0,
  voteReason: null,
  voteDeadline: null,
  verdict: null,
  ballotRoot: null,
  ballotCount: null,
  finalOutcome: null,
  route: null,
  creatorSlashed: null,
  finalizedAt: null,
};

/** The record after one more log (the first log of a market starts from nothing). */
export function applyResolutionLog(record: ResolutionRecord | null, log: ResolutionLog): ResolutionRecord {
  const r = record ?? EMPTY;
  switch (log.kind) {
    case 'proposed':
      return { ...r, phase: 'proposed', proposedOutcome: log.outcome, proposer: log.proposer.toLowerCase(), proposedAt: log.at, challengeDeadline: log.challengeDeadline };
    case 'challenged':
      return { ...r, phase: 'disputed', challenger: log.challenger.toLowerCase(), counterOutcome: log.counterOutcome, challengeBond: log.bond };
    case 'vote_opened':
      return { ...r, phase: 'voting', voteRound: log.round, voteReason: log.reason, voteDeadline: log.voteDeadline, verdict: null, ballotRoot: null, ballotCount: null };
    case 'vote_closed':
      return { ...r, phase: log.verdict === 'binding' ? r.phase : 'council', verdict: log.verdict, ballotRoot: log.ballotRoot, ballotCount: log.ballotCount };
    case 'council_decided':
      return r;
    case 'resolved':
      return { ...r, phase: 'resolved', finalOutcome: log.outcome, route: log.route, creatorSlashed: log.creatorSlashed, finalizedAt: log.at };
  }
}

export const foldResolution = (logs: readonly ResolutionLog[]): ResolutionRecord | null => logs.reduce<ResolutionRecord | null>(applyResolutionLog, null);

/** The canonical market state of a market with this record (open/closed when it has none: see states.ts). */
export function marketStateOf(record: ResolutionRecord): MarketState {
  switch (record.phase) {
    case 'proposed':
      return 'creator_proposal';
    case 'disputed':
      return 'challenge';
    case 'voting':
      return 'human_voting';
    case 'council':
      return 'council_review';
    case 'resolved':
      return record.finalOutcome === 0 ? 'void' : 'resolved';
  }
}

export interface ResolutionEvent {
  type: string;
  payload: Record<string, unknown>;
}

/** The outbox events one log announces (consumer-api-v1.md Events), with the spec's fields. */
export function eventsOf(log: ResolutionLog, before: ResolutionRecord | null, market: { chainId: number; address: string }): ResolutionEvent[] {
  const iso = (d: Date) => d.toISOString();
  switch (log.kind) {
    case 'proposed':
      return [{ type: 'market.challengeWindowOpened', payload: { outcome: log.outcome, isVoid: log.outcome === 0, challengeDeadline: iso(log.challengeDeadline), eligibleAt: iso(log.challengeDeadline) } }];
    case 'challenged':
      return [{ type: 'market.disputed', payload: { challenger: log.challenger.toLowerCase(), counterOutcome: log.counterOutcome } }];
    case 'vote_opened': {
      const opened = { type: 'market.voteOpened', payload: { sessionId: voteSessionId(market.chainId, market.address, log.round), round: log.round, voteDeadline: iso(log.voteDeadline) } };
      // An integrity restart replaces the running round: its ballots stop counting.
      if (log.reason !== 'integrity_restart' || !before) return [opened];
      const replaced = { type: 'market.voteClosed', payload: { sessionId: voteSessionId(market.chainId, market.address, before.voteRound), verdictKind: 'replaced', outcome: null } };
      return [replaced, opened];
    }
    case 'vote_closed': {
      const closed = {
        type: 'market.voteClosed',
        payload: { sessionId: voteSessionId(market.chainId, market.address, log.round), verdictKind: log.verdict, outcome: log.verdict === 'binding' ? log.outcome : null },
      };
      return log.verdict === 'binding' ? [closed] : [closed, { type: 'market.councilReview', payload: { phase: 'opened' } }];
    }
    case 'council_decided':
      return [{ type: 'market.councilReview', payload: { phase: 'executed' } }];
    case 'resolved': {
      const resolved = { type: 'market.resolved', payload: { outcome: log.outcome, isVoid: log.outcome === 0 } };
      // A dispute or an escalation (an absent creator) settled: announced before the resolution itself.
      const escalated = log.route !== 'undisputed';
      return escalated ? [{ type: 'market.disputeFinalized', payload: { finalOutcome: log.outcome, creatorSlashed: log.creatorSlashed } }, resolved] : [resolved];
    }
  }
}

/** JSON for storage (a log, a record): times as ISO strings, the bond as a decimal string. */
const toJson = (value: object): Record<string, unknown> => JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown>;

/** The stored JSON with its times as Dates and its bond as a bigint again. */
function fromJson<T>(json: Record<string, unknown>, times: readonly string[], bond: string): T {
  const out: Record<string, unknown> = { ...json };
  for (const f of times) if (typeof out[f] === 'string') out[f] = new Date(out[f] as string);
  if (typeof out[bond] === 'string') out[bond] = BigInt(out[bond] as string);
  return out as T;
}

export const resolutionLogToJson = (log: ResolutionLog): Record<string, unknown> => toJson(log);
export const resolutionLogFromJson = (json: Record<string, unknown>): ResolutionLog => fromJson(json, ['at', 'challengeDeadline', 'voteDeadline'], 'bond');
export const resolutionRecordToJson = (record: ResolutionRecord): Record<string, unknown> => toJson(record);
export const resolutionRecordFromJson = (json: Record<string, unknown>): ResolutionRecord => fromJson(json, ['proposedAt', 'challengeDeadline', 'voteDeadline', 'finalizedAt'], 'challengeBond');
