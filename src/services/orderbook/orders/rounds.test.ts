// The rounds of placements (rounds.ts) on their own: the markets whose batches fall due in one turn go into one round,
// at most MAX_ROUND_MARKETS of them; what joins while a round runs goes into the next; each entry is answered what its
// round answered it, or the round's failure; a round waits its turns for the markets due just after the first, and for
// the markets the last round answered.
import { describe, expect, it } from 'vitest';
import { TURNS_BEFORE_BATCH } from './books.ts';
import { MAX_ROUND_MARKETS, PlacementRounds, type RoundEntry } from './rounds.ts';

describe('placement rounds', () => {
  it('takes the markets due in one turn into one round, at most MAX_ROUND_MARKETS, and what joins meanwhile into the next', async () => {
    const rounds: bigint[][] = [];
    let late: Promise<PromiseSettledResult<string>[]> | null = null;
    const placement = new PlacementRounds<string, string>(async (round) => {
      rounds.push(round.map((e) => e.marketId));
      // A market that falls due while the first round runs.
      if (rounds.length === 1) late = placement.join(99n, () => ['late']);
      for (const e of round) e.resolve(e.take().map((item) => ({ status: 'fulfilled', value: `${e.marketId}:${item}` })));
    });
    const due = Array.from({ length: MAX_ROUND_MARKETS + 3 }, (_, i) => placement.join(BigInt(i + 1), () => ['a', 'b']));
    const answers = await Promise.all(due);
    expect(answers[4]).toEqual([
      { status: 'fulfilled', value: '5:a' },
      { status: 'fulfilled', value: '5:b' },
    ]);
    expect(await late).toEqual([{ status: 'fulfilled', value: '99:late' }]);
    expect(rounds.map((r) => r.length)).toEqual([MAX_ROUND_MARKETS, 4]);
    expect(rounds[1]).toEqual([17n, 18n, 19n, 99n]);
  });

  it("answers every entry of a round that throws with the round's failure, and runs the next round", async () => {
    const seen: RoundEntry<string, string>[][] = [];
    const placement = new PlacementRounds<string, string>(async (round) => {
      seen.push([...round]);
      if (seen.length === 1) throw new Error('the round failed');
      for (const e of round) e.resolve([]);
    });
    const failed = Promise.allSettled([placement.join(1n, () => []), placement.join(2n, () => [])]);
    expect((await failed).map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await placement.join(3n, () => [])).toEqual([]);
    expect(seen.map((r) => r.length)).toEqual([2, 1]);
  });

  it('waits its turns for the markets that fall due just after the first (their queues take their own turns first)', async () => {
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    const roundsWith = async (turns: number) => {
      const rounds: bigint[][] = [];
      const placement = new PlacementRounds<string, string>(async (round) => {
        rounds.push(round.map((e) => e.marketId));
        for (const e of round) e.resolve([]);
      }, turns);
      const joined = [placement.join(1n, () => [])];
      await turn();
      joined.push(placement.join(2n, () => []));
      await turn();
      joined.push(placement.join(3n, () => []));
      await Promise.all(joined);
      return rounds;
    };
    expect(await roundsWith(3)).toEqual([[1n, 2n, 3n]]);
    expect(await roundsWith(1)).toEqual([[1n], [2n], [3n]]);
  });

  it('takes the markets the last round answered, which queue again after their own turns, into the next round with the others', async () => {
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    const rounds: bigint[][] = [];
    const again: Promise<unknown>[] = [];
    const placement = new PlacementRounds<string, string>(async (round) => {
      rounds.push(round.map((e) => e.marketId));
      // Another market falls due while the first round runs.
      if (rounds.length === 1) again.push(placement.join(2n, () => []));
      for (const e of round) e.resolve([]);
    }, TURNS_BEFORE_BATCH + 1);
    // Market 1 places again once answered, after its queue's turns (books.ts), as under a steady load.
    await placement.join(1n, () => []);
    for (let t = 0; t < TURNS_BEFORE_BATCH; t++) await turn();
    again.push(placement.join(1n, () => []));
    await Promise.all(again);
    expect(rounds).toEqual([[1n], [2n, 1n]]);
  });
});
