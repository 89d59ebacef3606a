/**
 * The ledger tree's updates in turns of the event loop. A batch that adds or removes a leaf rehashes every node above
 * the leaves after it: with 20,000 leaves a batch of 300 changes with 5 new leaves took 50-66 ms, one new leaf among
 * 100,000 140-260 ms, and on the service's thread every request waited meanwhile. Hashed in steps with a turn between
 * them, the same work leaves the requests a turn every few milliseconds (docs/ledger-merkle.md "Incremental updates").
 */
import { setImmediate as turn } from 'node:timers/promises';
import { LedgerMerkleTree } from '../../core/ledger/merkle.ts';
import type { BalanceEntry } from '../../core/ledger/types.ts';

/** Leaf or node hashes between two turns: 3-8 ms at the 3-5 µs one costs on this machine (bench/merkle.ts, docs/ledger-merkle.md). */
export const TREE_HASHES_PER_TURN = 1_000;

/**
 * Runs `steps` through with a turn of the event loop after each pause; answers what they return, or null once
 * `abandoned()` says so after a turn.
 */
async function inTurns<T>(steps: Generator<void, T, void>, abandoned: () => boolean = () => false): Promise<T | null> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await turn();
    if (abandoned()) return null;
  }
}

/**
 * A copy of `tree` with `changes` applied, `hashesPerTurn` leaf or node hashes at a time with a turn of the event loop
 * between them. `tree` itself is never half updated: whoever reads it meanwhile (a proof) sees it as it was.
 */
export async function treeApplied(tree: LedgerMerkleTree, changes: readonly BalanceEntry[], hashesPerTurn = TREE_HASHES_PER_TURN): Promise<LedgerMerkleTree> {
  const next = tree.clone();
  await inTurns(next.applySteps(changes, hashesPerTurn));
  return next;
}

/**
 * The tree of a balance snapshot (LedgerMerkleTree.fromBalances), `hashesPerTurn` leaf or node hashes at a time with a
 * turn of the event loop between them: a process elected to run the batcher builds the committed tree while it serves
 * requests (100,000 leaves are ~1 s of hashing, a million ~12 s). The sort is one piece. Null once `abandoned()` says
 * so between two steps (the start that asked was ended meanwhile).
 */
export function treeBuilt(entries: readonly BalanceEntry[], hashesPerTurn = TREE_HASHES_PER_TURN, abandoned?: () => boolean): Promise<LedgerMerkleTree | null> {
  return inTurns(LedgerMerkleTree.buildSteps(entries, hashesPerTurn), abandoned);
}
