import fc from 'fast-check';
import { bytesToHex, recoverTypedDataAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ballotsRoot, ballotTypedData, parseVoteSessionId, tally, voteSessionId, type CountedBallot } from './votes.ts';

const RESOLVER: Address = '0x00000000000000000000000000000000000000c0';
const MARKET: Address = '0x00000000000000000000000000000000000000aa';

describe('ballots', () => {
  it('a ballot signature recovers to its wallet over (market, round, outcome), and to nobody for another round', async () => {
    const voter = privateKeyToAccount(generatePrivateKey());
    const typed = ballotTypedData(8453, RESOLVER, { market: MARKET, round: 1, outcome: 2 });
    const signature = await voter.signTypedData(typed);
    expect(await recoverTypedDataAddress({ ...typed, signature })).toBe(voter.address);
    const otherRound = ballotTypedData(8453, RESOLVER, { market: MARKET, round: 2, outcome: 2 });
    expect(await recoverTypedDataAddress({ ...otherRound, signature })).not.toBe(voter.address);
  });

  it('the root is the same for any order of the same set, and changes with any ballot', () => {
    const ballot = fc.record({
      wallet: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => bytesToHex(b)),
      outcome: fc.integer({ min: 0, max: 3 }),
      signature: fc.uint8Array({ minLength: 65, maxLength: 65 }).map((b) => bytesToHex(b)),
    });
    fc.assert(
      fc.property(fc.uniqueArray(ballot, { minLength: 1, maxLength: 12, selector: (b) => b.wallet }), fc.nat(), (ballots: CountedBallot[], seed) => {
        const shuffled = [...ballots].sort((a, b) => ((a.wallet + seed).localeCompare(b.wallet + seed)));
        expect(ballotsRoot(shuffled)).toBe(ballotsRoot(ballots));
        const tampered = [...ballots];
        tampered[0] = { ...tampered[0]!, outcome: (tampered[0]!.outcome + 1) % 4 };
        expect(ballotsRoot(tampered)).not.toBe(ballotsRoot(ballots));
        expect(ballotsRoot(ballots.slice(1))).not.toBe(ballotsRoot(ballots));
      }),
    );
    expect(ballotsRoot([])).toBe(`0x${'00'.repeat(32)}`);
  });

  it('session ids name chain, market and round, and parse back', () => {
    const id = voteSessionId(8453, '0x00000000000000000000000000000000000000AA', 2);
    expect(id).toBe('8453:0x00000000000000000000000000000000000000aa:2');
    expect(parseVoteSessionId(id)).toEqual({ chainId: 8453, market: MARKET, round: 2 });
    for (const bad of ['8453:0xAA:1', '8453:0x00000000000000000000000000000000000000aa:3', '0:0x00000000000000000000000000000000000000aa:1', 'x']) expect(parseVoteSessionId(bad)).toBeNull();
  });
});

describe('tally', () => {
  const rules = { quorum: 3, outcomeCount: 2 };
  const votes = (...outcomes: number[]) => outcomes.map((outcome) => ({ outcome }));

  it('no quorum below the quorum, binding for a strict leader, deadlock on a tie for the lead', () => {
    expect(tally(votes(1, 1), rules)).toEqual({ kind: 'no_quorum', outcome: null, counts: [0, 2, 0] });
    expect(tally(votes(1, 1, 2), rules)).toEqual({ kind: 'binding', outcome: 1, counts: [0, 2, 1] });
    expect(tally(votes(0, 0, 2), rules)).toEqual({ kind: 'binding', outcome: 0, counts: [2, 0, 1] }); // void wins
    expect(tally(votes(1, 2, 0), rules)).toMatchObject({ kind: 'deadlock', outcome: null });
    expect(tally(votes(1, 1, 2, 2), rules)).toMatchObject({ kind: 'deadlock', outcome: null });
  });

  it('a binding outcome always has more ballots than any other; quorum decides no_quorum alone', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 40 }), fc.integer({ min: 1, max: 10 }), (outcomes, quorum) => {
        const v = tally(votes(...outcomes), { quorum, outcomeCount: 3 });
        expect(v.counts.reduce((a, b) => a + b, 0)).toBe(outcomes.length);
        expect(v.kind === 'no_quorum').toBe(outcomes.length < quorum);
        if (v.kind === 'binding') {
          for (const [o, c] of v.counts.entries()) if (o !== v.outcome) expect(c).toBeLessThan(v.counts[v.outcome!]!);
        }
        if (v.kind === 'deadlock') expect(v.counts.filter((c) => c === Math.max(...v.counts)).length).toBeGreaterThan(1);
      }),
    );
  });

  it('refuses an outcome outside the market and a quorum below 1', () => {
    expect(() => tally(votes(3), rules)).toThrow(RangeError);
    expect(() => tally(votes(1), { quorum: 0, outcomeCount: 2 })).toThrow(RangeError);
  });
});
