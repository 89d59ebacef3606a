// The open loop's schedule (bench/open-loop.ts), shared by the HTTP load client and the order path placed in the
// process: each request at its due moment whatever is in flight, the late ones together, none at or past the end.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { latencySummary, openLoop, percentile, unansweredAfterWindow, UNANSWERED_AFTER_MS, type OpenLoopClock } from '../../bench/open-loop.ts';

/** A clock the test moves: timers run when `advance` passes their moment, in order. */
function manualClock(start = 0) {
  let now = start;
  const timers: { at: number; run: () => void }[] = [];
  const clock: OpenLoopClock = { now: () => now, after: (ms, run) => void timers.push({ at: now + ms, run }) };
  return {
    clock,
    /** Moves to `to`, running each timer due by then at its own moment (a late loop: `lateBy` after it). */
    advance(to: number, lateBy = 0) {
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at > to) break;
        timers.shift();
        now = Math.min(to, next.at + lateBy);
        next.run();
      }
      now = to;
    },
    pending: () => timers.length,
  };
}

describe('openLoop', () => {
  it('fires request n at start + n / rate, none due at or after the end, and answers the next number', async () => {
    const m = manualClock(1_000);
    const fired: [number, number, number][] = [];
    const done = openLoop(500, 1_000, 1_010, (due, n) => fired.push([due, n, m.clock.now()]), { clock: m.clock });
    m.advance(1_010);
    expect(await done).toBe(5);
    expect(fired.map(([due, n]) => [due, n])).toEqual([
      [1_000, 0],
      [1_002, 1],
      [1_004, 2],
      [1_006, 3],
      [1_008, 4],
    ]);
    // On time, each fired at its due moment.
    for (const [due, , at] of fired) expect(at).toBe(due);
    expect(m.pending()).toBe(0);
  });

  it('fires every request that fell due while the loop was late in one turn, each still timed from its own due moment', async () => {
    const m = manualClock(0);
    const fired: [number, number][] = [];
    const done = openLoop(1_000, 0, 20, (due) => fired.push([due, m.clock.now()]), { clock: m.clock });
    m.advance(20, 7);
    await done;
    expect(fired.map(([due]) => due)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    // Late by 7 ms: several share one moment, and none fires before it is due.
    expect(new Set(fired.map(([, at]) => at)).size).toBeLessThan(20);
    for (const [due, at] of fired) expect(at).toBeGreaterThanOrEqual(due);
  });

  it('counts from `first` and refuses a rate of 0', async () => {
    const m = manualClock(0);
    const numbers: number[] = [];
    const done = openLoop(100, 0, 30, (_, n) => numbers.push(n), { first: 7, clock: m.clock });
    m.advance(30);
    // Request 7 is due at 70 ms, past the end: none.
    expect(await done).toBe(7);
    expect(numbers).toEqual([]);
    expect(() => openLoop(0, 0, 10, () => undefined, { clock: m.clock })).toThrow(RangeError);
  });

  it('fires exactly the requests due in [start, end) at any rate and lateness (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 30 }), async (rate, span, late) => {
        const m = manualClock(0);
        const dues: number[] = [];
        const done = openLoop(rate, 0, span, (due) => dues.push(due), { clock: m.clock });
        m.advance(span + 1_000, late);
        const sent = await done;
        const expected = Math.ceil((span * rate) / 1000);
        expect(sent).toBe(expected);
        expect(dues).toEqual(Array.from({ length: expected }, (_, n) => (n * 1000) / rate));
      }),
      { seed: 3303, numRuns: 200 },
    );
  });
});

describe('percentile', () => {
  it('is the nearest rank, NaN when empty', () => {
    const sorted = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(percentile(sorted, 50)).toBe(5);
    expect(percentile(sorted, 90)).toBe(9);
    expect(percentile(sorted, 99)).toBe(10);
    expect(percentile(Float64Array.from([4]), 1)).toBe(4);
    expect(percentile(new Float64Array(0), 50)).toBeNaN();
  });
});

describe('latencySummary', () => {
  it('answers the percentiles of the latencies in any order and their mean; NaN without any', () => {
    expect(latencySummary([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])).toEqual({ p50Ms: 5, p90Ms: 9, p99Ms: 10, meanMs: 5.5 });
    const none = latencySummary([]);
    expect([none.p50Ms, none.p90Ms, none.p99Ms, none.meanMs].every(Number.isNaN)).toBe(true);
  });
});

describe('unansweredAfterWindow', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers 0 once everything in flight settled, failures included', async () => {
    const refused = Promise.reject(new Error('refused'));
    refused.catch(() => undefined);
    expect(await unansweredAfterWindow(new Set([Promise.resolve(1), refused]))).toBe(0);
  });

  it('gives up on what is still in flight after UNANSWERED_AFTER_MS and counts it', async () => {
    vi.useFakeTimers();
    const never = new Promise<void>(() => undefined);
    const counted = unansweredAfterWindow(new Set([Promise.resolve(), never, never.then(() => undefined)]));
    await vi.advanceTimersByTimeAsync(UNANSWERED_AFTER_MS - 1);
    let settled = false;
    void counted.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    // The one that resolved is not counted.
    expect(await counted).toBe(2);
  });
});
