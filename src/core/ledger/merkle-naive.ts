/**
 * A deliberately plain reference of the ledger Merkle root (spec "Ledger contract"), written straight
 * from the rules with viem's hex helpers and no optimisation. Only tests and bench/merkle.ts use it,
 * to check LedgerMerkleTree (merkle.ts) against an independent reading of the spec.
 */
import { concat, encodePacked, keccak256, type Hex } from 'viem';
import { SUPPLY_ACCOUNT, type BalanceEntry } from './types.ts';

/** OpenZeppelin's commutative node hash: keccak256 of the two 32-byte children, smaller first. */
export function naiveHashPair(a: Hex, b: Hex): Hex {
  return a.toLowerCase() < b.toLowerCase() ? keccak256(concat([a, b])) : keccak256(concat([b, a]));
}

/** The root of the distinct (account, asset) balances (base units) given; 32 zero bytes for no leaves. */
export function naiveLedgerRoot(entries: Iterable<BalanceEntry>): Hex {
  const kept = [...entries].filter((e) => e.balance !== 0n && e.account !== SUPPLY_ACCOUNT);
  kept.sort((a, b) => {
    if (a.account !== b.account) return a.account < b.account ? -1 : 1;
    if (a.assetId === b.assetId) return 0;
    return a.assetId < b.assetId ? -1 : 1;
  });
  let level: Hex[] = kept.map((e) => keccak256(keccak256(encodePacked(['address', 'uint256', 'int256'], [e.account, e.assetId, e.balance]))));
  if (level.length === 0) return `0x${'00'.repeat(32)}`;
  while (level.length > 1) {
    const next: Hex[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1];
      next.push(right === undefined ? level[i]! : naiveHashPair(level[i]!, right));
    }
    level = next;
  }
  return level[0]!;
}

/** OpenZeppelin MerkleProof.verify, plainly: fold the siblings into the leaf and compare with the root. */
export function naiveVerifyProof(proof: readonly Hex[], root: Hex, leaf: Hex): boolean {
  return proof.reduce(naiveHashPair, leaf).toLowerCase() === root.toLowerCase();
}
