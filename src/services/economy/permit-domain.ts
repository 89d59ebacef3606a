/**
 * The EIP-712 domain of the payment token's permit, as the token publishes it (ERC-5267 eip712Domain()), so a buyer
 * signs exactly what the token verifies. A token without ERC-5267 gets its name() and version '1'.
 */
import { erc20Abi, type Address } from 'viem';
import { getEip712Domain } from 'viem/actions';
import { isProblemError } from '../../core/errors.ts';
import type { EconomyDeps } from './deps.ts';

export interface PermitDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}


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
    const { domain } = await deps.guard(() => getEip712Domain(deps.client, { address: token }));
    return { name: domain.name, version: domain.version, chainId: Number(domain.chainId), verifyingContract: domain.verifyingContract };
  } catch (err) {
    if (isProblemError(err)) throw err;
    const name = await deps.guard(() => deps.client.readContract({ address: token, abi: erc20Abi, functionName: 'name' }));
    return { name, version: '1', chainId: deps.chainId, verifyingContract: token };
  }
}
