import { describe, expect, it } from 'vitest';
import { grouped } from './group.ts';

/** A run whose calls the test finishes by hand. */
function controlledRun() {
  const calls: { items: number[]; finish: (fail?: Error) => void }[] = [];
  const run = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({ items, finish: (fail) => (fail ? reject(fail) : resolve(items.map((i) => `answer ${i}`))) });
    });
  return { calls, run };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('grouped', () => {
  it('answers calls of one turn in one run, each its own answer; calls made while it runs wait for the next run', async () => {
    const { calls, run } = controlledRun();
    const call = grouped(run);
    const first = [1, 2, 3].map((i) => call(i));
    await settle();
    expect(calls.map((c) => c.items)).toEqual([[1, 2, 3]]);
    const second = [4, 5].map((i) => call(i));
    await settle();
    expect(calls).toHaveLength(1); // one run at a time
    calls[0]!.finish();
    expect(await Promise.all(first)).toEqual(['answer 1', 'answer 2', 'answer 3']);
    await settle();
    expect(calls.map((c) => c.items)).toEqual([[1, 2, 3], [4, 5]]);
    calls[1]!.finish();
    expect(await Promise.all(second)).toEqual(['answer 4', 'answer 5']);
  });

  it('fails every call of a failed run, and runs the next group', async () => {
    const { calls, run } = controlledRun();
    const call = grouped(run);
    const failing = [call(1), call(2)];
    await settle();
    const later = call(3);
    calls[0]!.finish(new Error('statement failed'));
    for (const p of failing) await expect(p).rejects.toThrow('statement failed');
    await settle();
    calls[1]!.finish();
    expect(await later).toBe('answer 3');
  });

  it('puts at most max calls in one run', async () => {
    const { calls, run } = controlledRun();
    const call = grouped(run, 2);
    const all = [1, 2, 3, 4, 5].map((i) => call(i));
    for (let n = 0; n < 3; n++) {
      await settle();
      calls[n]!.finish();
      await Promise.resolve();
    }
    expect(await Promise.all(all)).toHaveLength(5);
    expect(calls.map((c) => c.items)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('a run that answers the wrong number of items fails its calls', async () => {
    const call = grouped(async (items: number[]) => items.slice(1));
    await expect(Promise.all([call(1), call(2)])).rejects.toThrow('a group of 2 got 1 answers');
  });
});
