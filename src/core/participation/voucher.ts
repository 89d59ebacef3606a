/**
 * The participation voucher as the distributor verifies it (contracts/economy/ParticipationDistributor.sol): EIP-712
 * typed data in the distributor's domain, and the bytes32 an intent id becomes on chain.
 */
import { keccak256, toHex, type Address, type Hex } from 'viem';

export const DISTRIBUTION_TYPES = {
  Distribution: [
    { name: 'account', type: 'address' },
    { name: 'recipient', type: 'address' },
    { name: 'cumulativeAmount', type: 'uint256' },
    { name: 'intentId', type: 'bytes32' },
    { name: 'epoch', type: 'uint64' },
    { name: 'expiresAt', type: 'uint64' },
  ],
} as const;

export const distributorDomain = (chainId: number, distributor: Address) => ({ name: 'svc ParticipationDistributor', version: '1', chainId, verifyingContract: distributor }) as const;

/** An intent id (pri_…) as the distributor's bytes32 intentId. */
export const intentKey = (intentId: string): Hex => keccak256(toHex(intentId));
