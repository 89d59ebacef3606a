/**
 * What the sale contract says now (docs/economy.md "Sale state"): paused, the PM it holds, its price and minimum. Every
 * purchase check reads it from the node: the chain is the authority for whether PM can be sold.
 */
import { erc20Abi, type Address } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import type { EconomyDeps } from './deps.ts';

export type SaleStateName = 'open' | 'paused' | 'sold_out' | 'not_deployed';

export interface SaleState {
  state: SaleStateName;
  address: Address | null;
  paused: boolean;
  /** PM base units the contract holds. */
  inventory: bigint;
  priceUsdcPerPm: bigint;
  minPayment: bigint;
}

export async function readSaleState(deps: EconomyDeps): Promise<SaleState> {
  const { sale } = deps;
  if (!sale) return { state: 'not_deployed', address: null, paused: false, inventory: 0n, priceUsdcPerPm: deps.terms.priceUsdcPerPm, minPayment: deps.terms.relayMinPayment };
  const abi = loadArtifact('PmSale').abi;
  const [paused, inventory, priceUsdcPerPm, minPayment] = await deps.guard(() =>
    Promise.all([
      deps.client.readContract({ address: sale, abi, functionName: 'paused' }) as Promise<boolean>,
      deps.client.readContract({ address: deps.tokens.PM, abi: erc20Abi, functionName: 'balanceOf', args: [sale] }),
      deps.client.readContract({ address: sale, abi, functionName: 'priceUsdcPerPm' }) as Promise<bigint>,
      deps.client.readContract({ address: sale, abi, functionName: 'minPayment' }) as Promise<bigint>,
    ]),
  );
  const state: SaleStateName = paused ? 'paused' : inventory === 0n ? 'sold_out' : 'open';
  return { state, address: sale, paused, inventory, priceUsdcPerPm, minPayment };
}
