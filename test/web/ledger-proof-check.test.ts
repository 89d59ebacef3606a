// The browser's ledger proof check (web/src/wallet/ledger-merkle.ts, docs/web.md "The ledger proof check") against
// the server's tree (src/core/ledger/merkle.ts): the same leaves, every proof folding to the same root, a changed
// balance or a wrong sibling refused, and the docs' test vectors.
import { toFunctionSelector, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { LedgerMerkleTree } from '../../src/core/ledger/merkle.ts';
import type { Account } from '../../src/core/ledger/types.ts';
import { LEDGER_ROOT_SELECTOR, ledgerLeaf, rootOf } from '../../web/src/wallet/ledger-merkle.ts';

describe('the ledger proof check in the browser', () => {
  it("builds docs/ledger-merkle.md's test vectors", () => {
    expect(ledgerLeaf('0x1111111111111111111111111111111111111111', 1793n, 1_000_000n)).toBe('0xd2e9f45a2e38f572b595173407cf585ee04d5275c4374907242147b1863afc5e');
    expect(ledgerLeaf('0xabcdef0123456789abcdef0123456789abcdef01', 0n, -5n)).toBe('0x83ae0cbde744fff8d87dac5ec47291806a96c1b5ef65fa4c20310c5c831f2042');
    expect(LEDGER_ROOT_SELECTOR).toBe(toFunctionSelector('ledgerRoot()'));
  });

  it("agrees with the server's tree on every leaf and proof, and refuses a changed balance or sibling", () => {
    // A deterministic ledger of 37 accounts (an odd count: promoted nodes), 1–3 assets each.
    let seed = 7n;
    const next = () => (seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n);
    const entries = Array.from({ length: 37 }, (_, i) => `0x${next().toString(16).padStart(16, '0').repeat(3).slice(0, 38)}${i.toString(16).padStart(2, '0')}` as Account).flatMap((account, i) =>
      Array.from({ length: 1 + (i % 3) }, (_, k) => ({ account, assetId: k === 0 ? 0n : (BigInt(i) << 8n) | BigInt(k - 1), balance: (next() % 10n ** 12n) + 1n })),
    );
    const tree = LedgerMerkleTree.fromBalances(entries);
    const root = tree.root();
    for (const e of entries) {
      const leaf = ledgerLeaf(e.account, e.assetId, e.balance);
      expect(leaf).toBe(tree.leafOf(e.account, e.assetId));
      const proof = tree.proof(e.account, e.assetId)!;
      expect(rootOf(leaf, proof)).toBe(root);
      expect(rootOf(ledgerLeaf(e.account, e.assetId, e.balance + 1n), proof)).not.toBe(root);
      if (proof.length > 0) expect(rootOf(leaf, [`0x${'00'.repeat(32)}` as Hex, ...proof.slice(1)])).not.toBe(root);
    }
  });
});
