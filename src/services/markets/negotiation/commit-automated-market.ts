import { parseEventLogs, type Address, type Hex, type TransactionReceipt } from 'viem';
import { problem } from '../../../core/error-codes.ts';
import type { MarketTerms } from '../../../core/markets/terms.ts';
import { createdMarketOf, type MarketCreatedArgs } from '../created-market.ts';
import { readMarketState } from '../market-state.ts';
import type { NegotiationRow } from './deps.ts';
import { lmsrFactoryAbi, lmsrFactoryFor } from './lane-contracts.ts';
import type { EffectRecorder } from '../../idempotency/idempotency.ts';
import { recordDeployment, type CommitDeps, type CommittedDeploy } from './record-deployment.ts';

/** An automated market: the MarketCreated of the terms' factory with this creator and questionHash (else DEPLOY_TX_MISMATCH). */
export async function commitAutomatedMarket(deps: CommitDeps, row: NegotiationRow, receipt: TransactionReceipt, txHash: Hex, recordEffect?: EffectRecorder): Promise<CommittedDeploy> {
  const { chain } = deps;
  const terms = row.terms as unknown as MarketTerms;
  const factory = lmsrFactoryFor(chain, terms.outcomes.length).toLowerCase();
  const created = parseEventLogs({ abi: lmsrFactoryAbi(), logs: receipt.logs, eventName: 'MarketCreated' }).find(
    (l) => l.address.toLowerCase() === factory && (l.args as { creator: string }).creator.toLowerCase() === row.creator && (l.args as { questionHash: string }).questionHash.toLowerCase() === row.question_hash,
  );
  if (!created) throw problem('DEPLOY_TX_MISMATCH', `transaction ${txHash} created no market of this negotiation (factory ${factory}, creator ${row.creator}, questionHash ${row.question_hash})`);
  const a = created.args as unknown as MarketCreatedArgs & { market: Address };
  const [block, state] = await chain.guard(() => Promise.all([chain.client.getBlock({ blockHash: receipt.blockHash }), readMarketState(chain.client, a.market, receipt.blockNumber)]));
  const at = { chainId: chain.chainId, factory, collateralSymbol: terms.collateral, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, txHash, blockTime: new Date(Number(block.timestamp) * 1000) };
  return recordDeployment(deps, row, createdMarketOf({ ...a, creator: row.creator }, at, state), { recordEffect });
}
