// SPDX-License-Identifier: MIT
// Test-only: checks ledger Merkle proofs with OpenZeppelin's MerkleProof, the "standard Merkle-proof conventions"
// the ledger spec promises. A library, not a contract, so scripts/build-contracts.ts compiles it (check:contracts
// catches breakage) but writes no release artifact for it; test/contracts/ledger.test.ts compiles and deploys it.
pragma solidity ^0.8.24;

import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";

/// @title LedgerProofVerifier
/// @notice Verifies one ledger balance leaf against a ledger root.
library LedgerProofVerifier {
    /// @notice leaf = keccak256(keccak256(abi.encodePacked(account, assetId, balance))); pairs hash sorted.
    /// @param proof Sibling hashes from the leaf up; empty when the tree is the one leaf.
    /// @param root A ledger root (ILedgerCommitment.ledgerRoot).
    /// @param balance The signed balance, base units or shares.
    function verify(bytes32[] calldata proof, bytes32 root, address account, uint256 assetId, int256 balance)
        external
        pure
        returns (bool)
    {
        bytes32 leaf = keccak256(bytes.concat(keccak256(abi.encodePacked(account, assetId, balance))));
        return MerkleProof.verify(proof, root, leaf);
    }
}
