/**
 * The EIP-712 domain of the payment token's permit, as the token publishes it (ERC-5267 eip712Domain()), so a buyer
 * signs exactly what the token verifies. A token without ERC-5267 gets its name() and version '1'.
 */
import { type Address } from 'viem';
import { isProblemError } from '../../core/errors.ts';
import type { EconomyDeps } from './deps.ts';

export interface PermitDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

const ERC5267_ABI = [
  {
    type: 'function',
    name: 'eip712Domain',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: 'fields', type: 'bytes1' },
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
      { name: 'salt', type: 'bytes32' },
      { name: 'extensions', type: 'uint256[]' },
    ],
  },
] as const;
const NAME_ABI = [{ type: 'function', name: 'name', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'string' }] }] as const;

const cache = new WeakMap<EconomyDeps, Promise<PermitDomain>>();

export function permitDomain(deps: EconomyDeps): Promise<PermitDomain> {
  let known = cache.get(deps);
  if (!known) {
    known = read(deps);
    cache.set(deps, known);
    known.catch(() => cache.delete(deps));
  }
  return known;
}

async function read(deps: EconomyDeps): Promise<PermitDomain> {
  const token = deps.tokens.USDC;
  try {
    const [, name, version, chainId, verifyingContract] = await deps.guard(() => deps.client.readContract({ address: token, abi: ERC5267_ABI, functionName: 'eip712Domain' }));
    return { name, version, chainId: Number(chainId), verifyingContract };
  } catch (err) {
    if (isProblemError(err)) throw err;
    const name = await deps.guard(() => deps.client.readContract({ address: token, abi: NAME_ABI, functionName: 'name' }));
    return { name, version: '1', chainId: deps.chainId, verifyingContract: token };
  }
}
