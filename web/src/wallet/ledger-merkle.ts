// The browser's half of docs/ledger-merkle.md, pure (no page, no wallet): a leaf from its account, asset and balance,
// and a proof folded to its root. test/web/ledger-proof-check.test.ts holds it to the server's tree.
import { concat, encodePacked, keccak256, type Hex } from 'viem';

/** keccak256(keccak256(abi.encodePacked(address account, uint256 assetId, int256 balance))): OpenZeppelin's double hash. */
export function ledgerLeaf(account: string, assetId: bigint, balance: bigint): Hex {
  return keccak256(keccak256(encodePacked(['address', 'uint256', 'int256'], [account as Hex, assetId, balance])));
}

/** OpenZeppelin's MerkleProof.verify fold: each step hashes the sorted pair (the smaller 32 bytes first). */
export function rootOf(leaf: Hex, proof: readonly Hex[]): Hex {
  return proof.reduce<Hex>((node, sibling) => {
    const [a, b] = node.toLowerCase() < sibling.toLowerCase() ? [node, sibling] : [sibling, node];
    return keccak256(concat([a, b]));
  }, leaf);
}

/** The selector of LedgerCommitment's ledgerRoot(): the first 4 bytes of keccak256("ledgerRoot()"). */
export const LEDGER_ROOT_SELECTOR = '0x8dd4e8c5';
