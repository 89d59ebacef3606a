// The factory call of each lane that creates the negotiated market, and the address the market will get.
import { encodeFunctionData, getContractAddress, type Address, type Hex } from 'viem';
import { LMSR_FEES, RESOLUTION_WINDOW_SECONDS } from '../../../core/markets/fees.ts';
import type { MarketTerms } from '../../../core/markets/terms.ts';
import type { ChainService } from '../../chain/chain-service.ts';
import type { Charges } from './charges.ts';
import type { NegotiationRow } from './deps.ts';
import { collateralTokenOf, lmsrFactoryAbi, orderBookFactoryAbi } from './lane-contracts.ts';

export interface DeployCallInput {
  row: NegotiationRow;
  terms: MarketTerms;
  charges: Charges;
  creator: Address;
}

export interface DeployCall {
  predictedMarket: Address;
  /** Calldata for charges.factory. */
  data: Hex;
}

const closeSeconds = (terms: MarketTerms): bigint => BigInt(Date.parse(terms.closeTime) / 1000);

/** OrderBookMarketFactory.createMarket; clones are created with CREATE: the next market sits at the factory's next nonce. */
export async function orderBookDeployCall(chain: ChainService, p: DeployCallInput): Promise<DeployCall> {
  const nonce = await chain.guard(() => chain.client.getTransactionCount({ address: p.charges.factory, blockTag: 'pending' }));
  const data = encodeFunctionData({ abi: orderBookFactoryAbi(), functionName: 'createMarket', args: [p.row.question_hash as Hex, closeSeconds(p.terms), RESOLUTION_WINDOW_SECONDS] });
  return { predictedMarket: getContractAddress({ from: p.charges.factory, nonce: BigInt(nonce) }), data };
}

/** LmsrMarketFactory.createMarket; the factory names the CREATE2 address of the creator's next market. */
export async function automatedDeployCall(chain: ChainService, p: DeployCallInput): Promise<DeployCall> {
  const abi = lmsrFactoryAbi();
  const predictedMarket = (await chain.guard(() => chain.client.readContract({ address: p.charges.factory, abi, functionName: 'nextMarketAddress', args: [p.creator] }))) as Address;
  const data = encodeFunctionData({
    abi,
    functionName: 'createMarket',
    // maxBond = the bond charged above: a bond raised before the creator sends reverts (BondAboveMax), never takes more.
    args: [collateralTokenOf(chain, p.terms.collateral as 'USDC' | 'PM'), p.row.question_hash as Hex, closeSeconds(p.terms), RESOLUTION_WINDOW_SECONDS, BigInt(p.terms.liquidity), LMSR_FEES.protocolFeeBps, p.terms.creatorFeeBps, BigInt(p.charges.bond.amount)],
  });
  return { predictedMarket, data };
}
