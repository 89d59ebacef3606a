import { describe, expect, it } from 'vitest';
import { LedgerMerkleTree } from '../../core/ledger/merkle.ts';
import type { Account, BalanceEntry } from '../../core/ledger/types.ts';
import { treeApplied, treeBuilt } from './tree-turns.ts';

const accountOf = (i: number) => `0x${(i * 7919 + 1).toString(16).padStart(40, '0')}` as Account;

/**
 * What `work` answers, and how many turns the event loop took meanwhile (a counter that runs once a turn and calls
 * `each` at every turn).
 */
async function countingTurns<T>(work: () => Promise<T>, each: () => void = () => undefined): Promise<[T, number]> {
  let turns = 0;
  let done = false;
  const count = () => {
    turns++;
    each();
    if (!done) setImmediate(count);
  };
  setImmediate(count);
  const answer = await work();
  done = true;
  return [answer, turns];
}

/** How many times a generator pauses before it is done. */
function pausesOf(steps: Generator<void, unknown, void>): number {
  let pauses = 0;
  while (!steps.next().done) pauses++;
  return pauses;
}

describe('the ledger tree updated in turns of the event loop', () => {
  // 64 accounts with two assets each; the batch changes values, removes leaves and adds new ones before most of the others.
  const initial: BalanceEntry[] = Array.from({ length: 128 }, (_, i) => ({ account: accountOf(i >> 1), assetId: BigInt(i & 1), balance: BigInt(1_000 + i) }));
  const changes: BalanceEntry[] = [
    ...Array.from({ length: 10 }, (_, i) => ({ ...initial[i * 12]!, balance: 5n + BigInt(i) })),
    { ...initial[3]!, balance: 0n },
    { account: accountOf(0), assetId: 9n, balance: 77n },
    { account: accountOf(1), assetId: 9n, balance: 78n },
  ];

  it('lets the event loop turn between its steps and answers the tree a whole apply gives, leaving the original as it was', async () => {
    const tree = LedgerMerkleTree.fromBalances(initial);
    const before = tree.root();
    const whole = tree.clone();
    whole.apply(changes);
    const steps = pausesOf(tree.clone().applySteps(changes, 4));
    expect(steps).toBeGreaterThan(10);

    // Read at every turn meanwhile, as a proof would: the tree is as it was each time.
    const seen = new Set<string>();
    const [next, turns] = await countingTurns(
      () => treeApplied(tree, changes, 4),
      () => seen.add(tree.root()),
    );
    expect([...seen]).toEqual([before]);
    // Each step waits for a turn, and the counter runs once a turn.
    expect(turns).toBeGreaterThanOrEqual(steps);
    expect(next.root()).toBe(whole.root());
    expect([...next.entries()]).toEqual([...whole.entries()]);
    expect(tree.root()).toBe(before);
  });

  it('builds a tree in steps with the event loop turning between them, as fromBalances builds it at once', async () => {
    const steps = pausesOf(LedgerMerkleTree.buildSteps(initial, 4));
    expect(steps).toBeGreaterThan(10);
    const [built, turns] = await countingTurns(() => treeBuilt(initial, 4));
    expect(turns).toBeGreaterThanOrEqual(steps);
    expect(built?.root()).toBe(LedgerMerkleTree.fromBalances(initial).root());
  });

  it('stops building, with no tree, once the start that asked for it is ended', async () => {
    let asked = 0;
    // Ended after three steps.
    expect(await treeBuilt(initial, 4, () => ++asked > 3)).toBeNull();
    expect(asked).toBe(4);
  });
});
