import { describe, expect, it } from 'vitest';
import { canTransition, type MarketState } from '../markets/states.ts';
import { applyResolutionLog, eventsOf, foldResolution, marketStateOf, type ResolutionLog, type ResolutionRecord } from './record.ts';

const at = (m: number) => new Date(Date.UTC(2026, 10, 24, 0, m));
const MARKET = { chainId: 8453, address: '0x00000000000000000000000000000000000000aa' };
const proposed = (outcome: number): ResolutionLog => ({ kind: 'proposed', at: at(0), outcome, proposer: '0xC0', challengeDeadline: at(120) });
const challenged: ResolutionLog = { kind: 'challenged', at: at(10), challenger: '0xBB', counterOutcome: 2, bond: 10n };
const opened = (round: number, reason: 'dispute' | 'absent_creator' | 'integrity_restart'): ResolutionLog => ({ kind: 'vote_opened', at: at(20), round, voteDeadline: at(20 + 1440), reason });
const closed = (verdict: 'binding' | 'no_quorum' | 'deadlock', outcome = 2): ResolutionLog => ({ kind: 'vote_closed', at: at(1500), round: 1, verdict, outcome, ballotRoot: '0x01', ballotCount: 3 });
const resolved = (outcome: number, route: 'undisputed' | 'vote' | 'council', creatorSlashed = false): ResolutionLog => ({ kind: 'resolved', at: at(1600), outcome, route, creatorSlashed });

/** The market states a path of logs walks through, starting from closed, each step an edge of the published graph. */
function walk(logs: ResolutionLog[]): { states: MarketState[]; events: string[]; record: ResolutionRecord } {
  let record: ResolutionRecord | null = null;
  const states: MarketState[] = ['closed'];
  const events: string[] = [];
  for (const log of logs) {
    events.push(...eventsOf(log, record, MARKET).map((e) => e.type));
    record = applyResolutionLog(record, log);
    const state = marketStateOf(record);
    if (state !== states.at(-1)) {
      expect(canTransition(states.at(-1)!, state), `${states.at(-1)} -> ${state}`).toBe(true);
      states.push(state);
    }
  }
  return { states, events, record: record! };
}

describe('resolution record', () => {
  it('undisputed proposal: creator_proposal then resolved', () => {
    const w = walk([proposed(1), resolved(1, 'undisputed')]);
    expect(w.states).toEqual(['closed', 'creator_proposal', 'resolved']);
    expect(w.events).toEqual(['market.challengeWindowOpened', 'market.resolved']);
    expect(w.record).toMatchObject({ phase: 'resolved', finalOutcome: 1, route: 'undisputed', creatorSlashed: false, proposedAt: at(0) });
  });

  it('a void proposal resolves void and says so', () => {
    const w = walk([proposed(0), resolved(0, 'undisputed')]);
    expect(w.states).toEqual(['closed', 'creator_proposal', 'void']);
    expect(eventsOf(proposed(0), null, MARKET)[0]!.payload).toMatchObject({ outcome: 0, isVoid: true, challengeDeadline: at(120).toISOString(), eligibleAt: at(120).toISOString() });
  });

  it('disputed and settled by a binding vote', () => {
    const w = walk([proposed(1), challenged, opened(1, 'dispute'), closed('binding', 2), resolved(2, 'vote', true)]);
    expect(w.states).toEqual(['closed', 'creator_proposal', 'challenge', 'human_voting', 'resolved']);
    expect(w.events).toEqual(['market.challengeWindowOpened', 'market.disputed', 'market.voteOpened', 'market.voteClosed', 'market.disputeFinalized', 'market.resolved']);
    expect(w.record).toMatchObject({ challenger: '0xbb', counterOutcome: 2, challengeBond: 10n, verdict: 'binding', ballotRoot: '0x01', creatorSlashed: true });
  });

  it('no quorum and deadlock go to the council, which decides', () => {
    for (const verdict of ['no_quorum', 'deadlock'] as const) {
      const w = walk([proposed(1), challenged, opened(1, 'dispute'), closed(verdict), { kind: 'council_decided', at: at(1700), outcome: 1, signers: ['0x1'] }, resolved(1, 'council')]);
      expect(w.states).toEqual(['closed', 'creator_proposal', 'challenge', 'human_voting', 'council_review', 'resolved']);
      expect(w.events).toEqual(['market.challengeWindowOpened', 'market.disputed', 'market.voteOpened', 'market.voteClosed', 'market.councilReview', 'market.councilReview', 'market.disputeFinalized', 'market.resolved']);
      expect(eventsOf(closed(verdict), null, MARKET)[0]!.payload).toEqual({ sessionId: `8453:${MARKET.address}:1`, verdictKind: verdict, outcome: null });
    }
  });

  it('an absent creator goes straight to a vote, slashed', () => {
    const w = walk([opened(1, 'absent_creator'), closed('binding', 1), resolved(1, 'vote', true)]);
    expect(w.states).toEqual(['closed', 'human_voting', 'resolved']);
    expect(w.record).toMatchObject({ proposedAt: null, voteReason: 'absent_creator', creatorSlashed: true });
    expect(w.events).toContain('market.disputeFinalized');
  });

  it('an integrity restart replaces round 1 with round 2 (voteClosed replaced, then voteOpened round 2)', () => {
    const logs = [proposed(1), challenged, opened(1, 'dispute')];
    const before = foldResolution(logs);
    const restart = opened(2, 'integrity_restart');
    expect(eventsOf(restart, before, MARKET)).toEqual([
      { type: 'market.voteClosed', payload: { sessionId: `8453:${MARKET.address}:1`, verdictKind: 'replaced', outcome: null } },
      { type: 'market.voteOpened', payload: { sessionId: `8453:${MARKET.address}:2`, round: 2, voteDeadline: at(1460).toISOString() } },
    ]);
    expect(applyResolutionLog(before, restart)).toMatchObject({ phase: 'voting', voteRound: 2, verdict: null });
  });
});
