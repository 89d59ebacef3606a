// The factories and tokens of the markets lane the create loop builds transactions for.
import type { Abi, Address } from 'viem';
import { loadArtifact } from '../../../chain/artifacts.ts';
import type { ChainService } from '../../chain/chain-service.ts';

export const lmsrFactoryAbi = (): Abi => loadArtifact('LmsrMarketFactory').abi;
export const orderBookFactoryAbi = (): Abi => loadArtifact('OrderBookMarketFactory').abi;

/** The automated-market factory is chosen by the outcome count: binary or ternary. */
export const lmsrFactoryFor = (chain: ChainService, outcomes: number): Address => (outcomes === 3 ? chain.lane().factories.ternary : chain.lane().factories.binary);

export const collateralTokenOf = (chain: ChainService, symbol: 'USDC' | 'PM'): Address => chain.collateral().find((c) => c.symbol === symbol)!.token;
