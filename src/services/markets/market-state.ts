// A market's chain-held state at one block: what the projection stores at creation and restores after a reorg.
import type { Address, PublicClient } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';

export interface MarketChainState {
  /** Per outcome, 1e18 = 1, as decimal strings. */
  prices: string[];
  /** Per outcome, base units, as decimal strings. */
  outstanding: string[];
  /** Accrued creator fees, collateral base units. */
  creatorFees: bigint;
}

export async function readMarketState(client: PublicClient, market: Address, blockNumber: bigint): Promise<MarketChainState> {
  const abi = loadArtifact('LmsrMarket').abi;
  const read = <T>(functionName: 'prices' | 'outstandingShares' | 'creatorFees') => client.readContract({ address: market, abi, functionName, blockNumber }) as Promise<T>;
  const [prices, outstanding, creatorFees] = await Promise.all([read<readonly bigint[]>('prices'), read<readonly bigint[]>('outstandingShares'), read<bigint>('creatorFees')]);
  return { prices: prices.map(String), outstanding: outstanding.map(String), creatorFees };
}
