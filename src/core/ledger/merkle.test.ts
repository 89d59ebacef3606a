import { SimpleMerkleTree } from '@openzeppelin/merkle-tree';
import fc from 'fast-check';
import { encodePacked, keccak256, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { EMPTY_LEDGER_ROOT, LedgerMerkleTree, leafHash, ledgerLeaf, verifyProof } from './merkle.ts';
import { naiveLedgerRoot, naiveVerifyProof } from './merkle-naive.ts';
import { outcomeAsset, SUPPLY_ACCOUNT, type Account, type BalanceEntry } from './types.ts';
import { replayable } from '../../../test/support/property.ts';

const MAX_INT256 = (1n << 255n) - 1n;
const MIN_INT256 = -(1n << 255n);
const MAX_UINT256 = (1n << 256n) - 1n;
const key = (e: { account: string; assetId: bigint }) => `${e.account}/${e.assetId}`;

// A small pool of accounts (the supply account and the extremes included) so that accounts hold several
// assets and orderings tie on the account; plus fully random ones.
const POOL: Account[] = [
  SUPPLY_ACCOUNT,
  '0x0000000000000000000000000000000000000001',
  '0x00000000000000000000000000000000000000ff',
  '0x7fffffffffffffffffffffffffffffffffffffff',
  '0x8000000000000000000000000000000000000000',
  '0xabcdef0123456789abcdef0123456789abcdef01',
  '0xffffffffffffffffffffffffffffffffffffffff',
];
const account = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...POOL) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Account) },
);
const assetId = fc.oneof(
  fc.bigInt(0n, 4n),
  fc.tuple(fc.bigInt(1n, 1000n), fc.constantFrom<0 | 1>(0, 1)).map(([m, s]) => outcomeAsset(m, s)),
  fc.bigInt(0n, MAX_UINT256),
);
const balance = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt(-1_000n, 10_000_000n) },
  { weight: 1, arbitrary: fc.bigInt(MIN_INT256, MAX_INT256) },
  { weight: 1, arbitrary: fc.constantFrom(0n, -1n, 1n, MIN_INT256, MAX_INT256) },
);
const entry = fc.record({ account, assetId, balance });
const balanceSet = (maxLength: number) => fc.uniqueArray(entry, { selector: key, maxLength });
/** Like balanceSet but with at least one leaf (non-zero balance, not the supply account). */
const nonEmptySet = (maxLength: number) =>
  balanceSet(maxLength).filter((es) => es.some((e) => e.balance !== 0n && e.account !== SUPPLY_ACCOUNT));
const isLeaf = (e: BalanceEntry) => e.balance !== 0n && e.account !== SUPPLY_ACCOUNT;

/** A batch of changes against `current`: value changes, removals (0), inserts, supply-account noise. */
const changeBatch = (current: readonly BalanceEntry[]) => {
  const existing = current.length === 0 ? fc.constant(null) : fc.constantFrom(...current);
  const change = fc.oneof(
    existing.chain((e) => (e === null ? entry : fc.record({ account: fc.constant(e.account), assetId: fc.constant(e.assetId), balance }))),
    existing.chain((e) => (e === null ? entry : fc.constant({ ...e, balance: 0n }))),
    entry,
  );
  return fc.uniqueArray(change, { selector: key, maxLength: 8 });
};

const applyToModel = (model: Map<string, BalanceEntry>, changes: readonly BalanceEntry[]) => {
  for (const c of changes) model.set(key(c), c);
};

describe('ledger Merkle tree', () => {
  it('has the root of the plain reference for any balance set, negative balances, zeros and the supply account included', () => {
    fc.assert(
      fc.property(balanceSet(40), (entries) => {
        expect(LedgerMerkleTree.fromBalances(entries).root()).toBe(naiveLedgerRoot(entries));
      }),
      replayable({ numRuns: 100 }),
    );
  });

  it('counts, orders, looks up and returns only the non-zero balances of accounts other than the supply account', () => {
    fc.assert(
      fc.property(balanceSet(40), (entries) => {
        const tree = LedgerMerkleTree.fromBalances(entries);
        const leaves = entries.filter(isLeaf);
        expect(tree.size).toBe(leaves.length);
        const listed = [...tree.entries()];
        expect(listed.map(key).sort()).toEqual(leaves.map(key).sort());
        for (let i = 1; i < listed.length; i++) {
          const [a, b] = [listed[i - 1]!, listed[i]!];
          expect(a.account < b.account || (a.account === b.account && a.assetId < b.assetId)).toBe(true);
        }
        for (const e of entries) expect(tree.balanceOf(e.account, e.assetId)).toBe(isLeaf(e) ? e.balance : 0n);
        for (const a of new Set([...entries.map((e) => e.account), ...POOL])) expect(tree.entriesOf(a)).toEqual(listed.filter((e) => e.account === a));
      }),
      replayable({ numRuns: 50 }),
    );
  });

  it('refuses an (account, asset) given twice, whatever the balances', () => {
    fc.assert(
      fc.property(balanceSet(10).filter((es) => es.length > 0), fc.nat(), balance, (entries, pick, other) => {
        const twin = { ...entries[pick % entries.length]!, balance: other };
        expect(() => LedgerMerkleTree.fromBalances([...entries, twin])).toThrow(RangeError);
      }),
      replayable({ numRuns: 50 }),
    );
  });

  it('refuses malformed entries', () => {
    const ok: BalanceEntry = { account: POOL[1]!, assetId: 0n, balance: 1n };
    expect(() => LedgerMerkleTree.fromBalances([{ ...ok, account: '0xABCDEF0123456789ABCDEF0123456789ABCDEF01' }])).toThrow(RangeError);
    expect(() => LedgerMerkleTree.fromBalances([{ ...ok, account: '0x1234' }])).toThrow(RangeError);
    expect(() => LedgerMerkleTree.fromBalances([{ ...ok, assetId: -1n }])).toThrow(RangeError);
    expect(() => LedgerMerkleTree.fromBalances([{ ...ok, assetId: MAX_UINT256 + 1n }])).toThrow(RangeError);
    expect(() => LedgerMerkleTree.fromBalances([{ ...ok, balance: MAX_INT256 + 1n }])).toThrow(RangeError);
    expect(() => LedgerMerkleTree.fromBalances([{ ...ok, balance: MIN_INT256 - 1n }])).toThrow(RangeError);
  });

  it('gives every leaf a proof that verifies against the root and fails for any other balance', () => {
    fc.assert(
      fc.property(nonEmptySet(30), (entries) => {
        const tree = LedgerMerkleTree.fromBalances(entries);
        const root = tree.root();
        for (const e of tree.entries()) {
          const proof = tree.proof(e.account, e.assetId);
          expect(proof).not.toBeNull();
          const leaf = ledgerLeaf(e);
          expect(tree.leafOf(e.account, e.assetId)).toBe(leaf);
          expect(verifyProof(proof!, root, leaf)).toBe(true);
          expect(naiveVerifyProof(proof!, root, leaf)).toBe(true);
          expect(SimpleMerkleTree.verify(root, leaf, proof!)).toBe(true);
          const wrong = ledgerLeaf({ ...e, balance: e.balance === MAX_INT256 ? e.balance - 1n : e.balance + 1n });
          expect(verifyProof(proof!, root, wrong)).toBe(false);
          expect(SimpleMerkleTree.verify(root, wrong, proof!)).toBe(false);
        }
        for (const e of entries.filter((x) => !isLeaf(x))) expect(tree.proof(e.account, e.assetId)).toBeNull();
      }),
      replayable({ numRuns: 60 }),
    );
  });

  it('changes the root when any single balance moves by one base unit', () => {
    fc.assert(
      fc.property(nonEmptySet(30), fc.nat(), fc.boolean(), (entries, pick, up) => {
        const leaves = entries.filter(isLeaf);
        const target = leaves[pick % leaves.length]!;
        let moved = up ? target.balance + 1n : target.balance - 1n;
        if (moved > MAX_INT256 || moved < MIN_INT256) moved = up ? target.balance - 1n : target.balance + 1n;
        const before = LedgerMerkleTree.fromBalances(entries);
        const after = LedgerMerkleTree.fromBalances(entries.map((e) => (e === target ? { ...e, balance: moved } : e)));
        expect(after.root()).not.toBe(before.root());
        before.apply([{ ...target, balance: moved }]);
        expect(before.root()).toBe(after.root());
      }),
      replayable({ numRuns: 100 }),
    );
  });

  it('after any sequence of applied changes equals the tree built from the resulting balances', () => {
    const scenario = balanceSet(30).chain((initial) =>
      fc.tuple(fc.constant(initial), changeBatch(initial).chain((b1) => fc.tuple(fc.constant(b1), changeBatch([...initial, ...b1]), changeBatch(b1)))),
    );
    fc.assert(
      fc.property(scenario, ([initial, [b1, b2, b3]]) => {
        const tree = LedgerMerkleTree.fromBalances(initial);
        const model = new Map(initial.map((e) => [key(e), e]));
        for (const batch of [b1, b2, b3]) {
          tree.apply(batch);
          applyToModel(model, batch);
          const expected = LedgerMerkleTree.fromBalances(model.values());
          expect(tree.root()).toBe(expected.root());
          expect(tree.size).toBe(expected.size);
          expect([...tree.entries()]).toEqual([...expected.entries()]);
        }
        expect(tree.root()).toBe(naiveLedgerRoot(model.values()));
      }),
      replayable({ numRuns: 100 }),
    );
  });

  it('applied in steps, pauses after every so many hashes and ends as the whole apply does', () => {
    const scenario = balanceSet(30).chain((initial) => fc.tuple(fc.constant(initial), changeBatch(initial), fc.integer({ min: 1, max: 5 })));
    fc.assert(
      fc.property(scenario, ([initial, batch, perStep]) => {
        const whole = LedgerMerkleTree.fromBalances(initial);
        whole.apply(batch);
        // One hash a step: the pauses count the hashes.
        const single = LedgerMerkleTree.fromBalances(initial);
        const hashes = [...single.applySteps(batch, 1)].length;
        const stepped = LedgerMerkleTree.fromBalances(initial);
        const pauses = [...stepped.applySteps(batch, perStep)].length;
        expect(pauses).toBe(Math.floor(hashes / perStep));
        for (const tree of [single, stepped]) {
          expect(tree.root()).toBe(whole.root());
          expect([...tree.entries()]).toEqual([...whole.entries()]);
        }
        // A change that reaches a tree of two leaves or more hashes at least the root.
        const changed = whole.root() !== LedgerMerkleTree.fromBalances(initial).root();
        if (changed && whole.size > 1) expect(hashes).toBeGreaterThan(0);
        // With no limit it never pauses: apply is the steps run through at once.
        const unlimited = LedgerMerkleTree.fromBalances(initial);
        expect([...unlimited.applySteps(batch, Infinity)]).toHaveLength(0);
        expect(unlimited.root()).toBe(whole.root());
      }),
      replayable({ numRuns: 100 }),
    );
  });

  it('built in steps, pauses after every so many hashes and ends as the tree built at once', () => {
    fc.assert(
      fc.property(balanceSet(40), fc.integer({ min: 1, max: 5 }), (entries, perStep) => {
        const whole = LedgerMerkleTree.fromBalances(entries);
        const drain = (steps: Generator<void, LedgerMerkleTree, void>): [LedgerMerkleTree, number] => {
          for (let pauses = 0; ; pauses++) {
            const step = steps.next();
            if (step.done) return [step.value, pauses];
          }
        };
        const [single, hashes] = drain(LedgerMerkleTree.buildSteps(entries, 1));
        const [stepped, pauses] = drain(LedgerMerkleTree.buildSteps(entries, perStep));
        expect(pauses).toBe(Math.floor(hashes / perStep));
        // Every leaf is hashed, and every node above them.
        expect(hashes).toBeGreaterThanOrEqual(whole.size);
        for (const tree of [single, stepped]) {
          expect(tree.root()).toBe(whole.root());
          expect([...tree.entries()]).toEqual([...whole.entries()]);
        }
        expect(drain(LedgerMerkleTree.buildSteps(entries, Infinity))[1]).toBe(0);
      }),
      replayable({ numRuns: 100 }),
    );
  });

  it('refuses a bad change at the first step, before anything changed', () => {
    const tree = LedgerMerkleTree.fromBalances([{ account: POOL[1]!, assetId: 0n, balance: 5n }]);
    const before = tree.root();
    const steps = tree.applySteps(
      [
        { account: POOL[2]!, assetId: 0n, balance: 1n },
        { account: POOL[2]!, assetId: 0n, balance: 2n },
      ],
      1,
    );
    expect(() => steps.next()).toThrow(RangeError);
    expect(tree.root()).toBe(before);
  });

  it('copies into a tree that changes apart from the original: changes applied to one never reach the other', () => {
    const scenario = balanceSet(30).chain((initial) => fc.tuple(fc.constant(initial), changeBatch(initial), changeBatch(initial)));
    fc.assert(
      fc.property(scenario, ([initial, onCopy, onOriginal]) => {
        const original = LedgerMerkleTree.fromBalances(initial);
        const before = original.root();
        const copy = original.clone();
        copy.apply(onCopy);
        // The original is untouched, value changes (in place) and inserts or removals (rebuilt levels) alike.
        expect(original.root()).toBe(before);
        expect([...original.entries()]).toEqual([...LedgerMerkleTree.fromBalances(initial).entries()]);
        const model = new Map(initial.map((e) => [key(e), e]));
        applyToModel(model, onCopy);
        expect(copy.root()).toBe(LedgerMerkleTree.fromBalances(model.values()).root());
        // And the other way round.
        const copied = copy.root();
        original.apply(onOriginal);
        expect(copy.root()).toBe(copied);
      }),
      replayable({ numRuns: 100 }),
    );
  });

  it('keeps proofs valid after value changes, inserts and removals across level-count boundaries', () => {
    // Sizes around powers of two, where inserts and removals add or drop a level and flip promotions.
    const scenario = fc.integer({ min: 0, max: 70 }).chain((n) =>
      fc.tuple(
        fc.constant(Array.from({ length: n }, (_, i) => ({ account: POOL[1 + (i % 6)]!, assetId: BigInt(i), balance: BigInt(i + 1) }))),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 80 }), fc.constantFrom(0n, 5n, -7n)), { maxLength: 6 }),
      ),
    );
    fc.assert(
      fc.property(scenario, ([initial, edits]) => {
        const tree = LedgerMerkleTree.fromBalances(initial);
        const model = new Map(initial.map((e) => [key(e), e]));
        const seen = new Set<string>();
        const batch: BalanceEntry[] = [];
        for (const [i, b] of edits) {
          const change = { account: POOL[1 + (i % 6)]!, assetId: BigInt(i), balance: b };
          if (seen.has(key(change))) continue;
          seen.add(key(change));
          batch.push(change);
        }
        tree.apply(batch);
        applyToModel(model, batch);
        expect(tree.root()).toBe(LedgerMerkleTree.fromBalances(model.values()).root());
        for (const e of tree.entries()) expect(verifyProof(tree.proof(e.account, e.assetId)!, tree.root(), ledgerLeaf(e))).toBe(true);
      }),
      replayable({ numRuns: 100 }),
    );
  });

  it('refuses a batch touching an (account, asset) twice or a malformed entry, and leaves the tree unchanged', () => {
    const tree = LedgerMerkleTree.fromBalances([{ account: POOL[1]!, assetId: 0n, balance: 5n }]);
    const root = tree.root();
    expect(() => tree.apply([{ account: POOL[2]!, assetId: 0n, balance: 1n }, { account: POOL[2]!, assetId: 0n, balance: 2n }])).toThrow(RangeError);
    expect(() => tree.apply([{ account: POOL[1]!, assetId: 0n, balance: 9n }, { account: POOL[2]!, assetId: -1n, balance: 2n }])).toThrow(RangeError);
    expect(tree.root()).toBe(root);
    expect(tree.size).toBe(1);
  });

  it('ignores supply-account changes and no-op changes', () => {
    const tree = LedgerMerkleTree.fromBalances([{ account: POOL[1]!, assetId: 0n, balance: 5n }]);
    const root = tree.root();
    tree.apply([
      { account: SUPPLY_ACCOUNT, assetId: 0n, balance: -5n },
      { account: POOL[1]!, assetId: 0n, balance: 5n },
      { account: POOL[2]!, assetId: 3n, balance: 0n },
    ]);
    expect(tree.root()).toBe(root);
    expect(tree.size).toBe(1);
  });

  it('has 32 zero bytes as the root of no leaves, also after removing the last one', () => {
    expect(LedgerMerkleTree.fromBalances([]).root()).toBe(`0x${'00'.repeat(32)}`);
    expect(EMPTY_LEDGER_ROOT).toBe(`0x${'00'.repeat(32)}`);
    expect(LedgerMerkleTree.fromBalances([{ account: SUPPLY_ACCOUNT, assetId: 0n, balance: -10n }, { account: POOL[1]!, assetId: 0n, balance: 0n }]).root()).toBe(EMPTY_LEDGER_ROOT);
    const tree = LedgerMerkleTree.fromBalances([{ account: POOL[1]!, assetId: 0n, balance: 5n }]);
    tree.apply([{ account: POOL[1]!, assetId: 0n, balance: 0n }]);
    expect(tree.root()).toBe(EMPTY_LEDGER_ROOT);
    expect(tree.size).toBe(0);
    expect(tree.proof(POOL[1]!, 0n)).toBeNull();
  });

  it('has the leaf itself as the root of a single leaf, with an empty proof', () => {
    fc.assert(
      fc.property(entry.filter(isLeaf), (e) => {
        const tree = LedgerMerkleTree.fromBalances([e]);
        expect(tree.root()).toBe(ledgerLeaf(e));
        expect(tree.proof(e.account, e.assetId)).toEqual([]);
      }),
      replayable({ numRuns: 50 }),
    );
  });

  it('promotes an odd last node unchanged: root of three leaves is hash(hash(l0, l1), l2)', () => {
    const es = [0n, 1n, 2n].map((assetId) => ({ account: POOL[1]!, assetId, balance: 10n + assetId }));
    const [l0, l1, l2] = es.map(ledgerLeaf) as [Hex, Hex, Hex];
    const pair = (a: Hex, b: Hex) => keccak256(a < b ? `${a}${b.slice(2)}` : `${b}${a.slice(2)}`);
    const tree = LedgerMerkleTree.fromBalances(es);
    expect(tree.root()).toBe(pair(pair(l0, l1), l2));
    expect(tree.proof(POOL[1]!, 2n)).toEqual([pair(l0, l1)]);
    expect(tree.proof(POOL[1]!, 0n)).toEqual([l1, l2]);
  });

  it('hashes a leaf as keccak256(keccak256(abi.encodePacked(address, uint256, int256)))', () => {
    const viemLeaf = (a: Account, id: bigint, b: bigint) => keccak256(keccak256(encodePacked(['address', 'uint256', 'int256'], [a, id, b])));
    const a = '0x1111111111111111111111111111111111111111' as const;
    const id = outcomeAsset(7n, 1);
    expect(leafHash(a, id, 1_000_000n)).toBe(viemLeaf(a, id, 1_000_000n));
    expect(leafHash(a, id, 1_000_000n)).toBe('0xd2e9f45a2e38f572b595173407cf585ee04d5275c4374907242147b1863afc5e');
    expect(leafHash(POOL[5]!, 0n, -5n)).toBe('0x83ae0cbde744fff8d87dac5ec47291806a96c1b5ef65fa4c20310c5c831f2042');
    fc.assert(
      fc.property(entry, (e) => {
        expect(leafHash(e.account, e.assetId, e.balance)).toBe(viemLeaf(e.account, e.assetId, e.balance));
      }),
      replayable({ numRuns: 100 }),
    );
  });
});
