import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.ts';
import { createChainLiveness } from '../../src/chain/liveness.ts';

const quiet = createLogger('silent');
const answers = () => Promise.resolve(1n);
const fails = () => Promise.reject(new Error('fetch failed\nat somewhere'));

describe('chain liveness', () => {
  it('goes down when a probe fails, and up only once the reconciliation after the node came back finished', async () => {
    let now = 1_000;
    const liveness = createChainLiveness(quiet, () => now);
    let reconciled = 0;
    const reconcile = async () => {
      reconciled += 1;
    };
    await liveness.probeOnce(answers, reconcile);
    expect(liveness.state()).toEqual({ up: true, reason: null, since: 1_000 });
    expect(reconciled).toBe(0); // an answering node that was never down needs nothing

    now = 2_000;
    await liveness.probeOnce(fails, reconcile);
    expect(liveness.state()).toEqual({ up: false, reason: 'the node does not answer: fetch failed', since: 2_000 });
    now = 3_000;
    await liveness.probeOnce(fails, reconcile);
    expect(liveness.state().since).toBe(2_000); // still the first failure's time

    const failing = async () => {
      throw new Error('resume failed');
    };
    await liveness.probeOnce(answers, failing);
    expect(liveness.state().up).toBe(false); // answering but not reconciled: still down

    now = 4_000;
    await liveness.probeOnce(answers, reconcile);
    expect(reconciled).toBe(1);
    expect(liveness.state()).toEqual({ up: true, reason: null, since: 4_000 });
  });

  it('skips a probe while the previous one is still running', async () => {
    const liveness = createChainLiveness(quiet);
    let finish!: () => void;
    const slow = () => new Promise<void>((resolve) => (finish = resolve));
    const first = liveness.probeOnce(slow, answers as never);
    await liveness.probeOnce(fails, answers as never); // overlaps: skipped, so the node is not marked down
    expect(liveness.state().up).toBe(true);
    finish();
    await first;
  });

  it('keeps the first reason when marked down twice', () => {
    const liveness = createChainLiveness(quiet);
    liveness.down('the embedded anvil exited');
    liveness.down('a read found the node unreachable');
    expect(liveness.state().reason).toBe('the embedded anvil exited');
    liveness.up();
    expect(liveness.state().up).toBe(true);
  });
});
