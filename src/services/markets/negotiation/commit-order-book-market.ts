import type { TransactionReceipt } from 'viem';
import { problem } from '../../../core/error-codes.ts';
import { orderBookCreationsIn } from '../../orderbook/markets.ts';
import type { NegotiationRow } from './deps.ts';
import type { EffectRecorder } from '../../idempotency/idempotency.ts';
import { recordDeployment, type CommitDeps, type CommittedDeploy } from './record-deployment.ts';

/**
 * An ORDERBOOK market: the order-book factory's MarketCreated of this creator and questionHash (else
 * DEPLOY_TX_MISMATCH), registered with the negotiation pinned.
 */
export async function commitOrderBookMarket(deps: CommitDeps, row: NegotiationRow, receipt: TransactionReceipt, recordEffect?: EffectRecorder): Promise<CommittedDeploy> {
  const { chain } = deps;
  const factory = chain.lane().orderbookFactory.toLowerCase();
  const block = await chain.guard(() => chain.client.getBlock({ blockHash: receipt.blockHash }));
  const created = orderBookCreationsIn(receipt, { chainId: chain.chainId, factory, blockTime: new Date(Number(block.timestamp) * 1000) }).find(
    (c) => c.creator === row.creator && c.questionHash === row.question_hash,
  );
  if (!created) throw problem('DEPLOY_TX_MISMATCH', `transaction ${receipt.transactionHash} created no order-book market of this negotiation (factory ${factory}, creator ${row.creator}, questionHash ${row.question_hash})`);
  return recordDeployment(deps, row, created, { negotiationId: row.id, recordEffect });
}
