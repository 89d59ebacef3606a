import type { Address } from 'viem';
import type { MarketTerms } from '../../../core/markets/terms.ts';
import type { ChainService } from '../../chain/chain-service.ts';
import { PLAY_MONEY } from '../../orderbook/markets.ts';
import { collateralTokenOf, lmsrFactoryAbi, lmsrFactoryFor } from './lane-contracts.ts';

/** What creating the market costs the creator, in base units: the subsidy (b·ln n of the collateral) and the PM bond. */
export interface Charges {
  outcomeCount: number;
  factory: Address;
  subsidy: { token: Address; symbol: string; amount: string };
  bond: { token: Address; symbol: 'PM'; amount: string };
}

/** The factory's own quote for automated terms; play money (ORDERBOOK) is charged nothing. */
export async function chargesFor(chain: ChainService, terms: MarketTerms): Promise<Charges> {
  if (terms.pricingModel === 'ORDERBOOK' || terms.collateral === 'PLAY') {
    // Play money: the order-book factory takes no subsidy and no bond.
    return {
      outcomeCount: 2,
      factory: chain.lane().orderbookFactory,
      subsidy: { token: PLAY_MONEY.token, symbol: PLAY_MONEY.symbol, amount: '0' },
      bond: { token: collateralTokenOf(chain, 'PM'), symbol: 'PM', amount: '0' },
    };
  }
  const factory = lmsrFactoryFor(chain, terms.outcomes.length);
  const quote = () => chain.client.readContract({ address: factory, abi: lmsrFactoryAbi(), functionName: 'quoteCreation', args: [BigInt(terms.liquidity)] });
  const [subsidy, bond] = (await chain.guard(quote)) as readonly [bigint, bigint];
  return {
    outcomeCount: terms.outcomes.length,
    factory,
    subsidy: { token: collateralTokenOf(chain, terms.collateral), symbol: terms.collateral, amount: subsidy.toString() },
    bond: { token: collateralTokenOf(chain, 'PM'), symbol: 'PM', amount: bond.toString() },
  };
}
