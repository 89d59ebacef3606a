import type { Hex, TransactionReceipt } from 'viem';
import { problem } from '../../../core/error-codes.ts';
import type { MarketTerms } from '../../../core/markets/terms.ts';
import type { Principal } from '../../../core/principal.ts';
import type { ChainService } from '../../chain/chain-service.ts';
import type { EffectRecorder } from '../../idempotency/idempotency.ts';
import { commitAutomatedMarket } from './commit-automated-market.ts';
import { commitOrderBookMarket } from './commit-order-book-market.ts';
import type { NegotiationRow } from './deps.ts';
import { deployedMarketOf } from './get-committed-deploy.ts';
import { getNegotiation } from './get-negotiation.ts';
import type { CommitDeps, CommittedDeploy } from './record-deployment.ts';

/**
 * POST /negotiate/{id}/commit-deploy: registers the market from the mined receipt of the factory transaction. The
 * same hash again answers the same market. Under an Idempotency-Key, `recordEffect` records the registration (by
 * negotiation id) in its transaction, in either lane; a repeated commit registers nothing and records nothing.
 */
export async function commitDeploy(deps: CommitDeps, principal: Principal, id: string, txHash: Hex, recordEffect?: EffectRecorder): Promise<CommittedDeploy> {
  const row = await getNegotiation(deps, principal, id);
  if (row.status === 'deployed' && row.market_address) return alreadyCommitted(deps, row, { id, txHash });
  if (row.status !== 'accepted') throw problem('NEGOTIATION_STATE', `negotiation ${id} is ${row.status}; commit-deploy needs accepted`);
  const receipt = await requireMinedReceipt(deps.chain, txHash);
  const terms = row.terms as unknown as MarketTerms;
  if (terms.pricingModel === 'ORDERBOOK') return commitOrderBookMarket(deps, row, receipt, recordEffect);
  return commitAutomatedMarket(deps, row, receipt, txHash, recordEffect);
}

/** A repeated commit of the same hash answers the market; another hash is NEGOTIATION_STATE. */
async function alreadyCommitted(deps: Pick<CommitDeps, 'db'>, row: NegotiationRow, p: { id: string; txHash: Hex }): Promise<CommittedDeploy> {
  if (row.deploy_tx_hash?.toLowerCase() !== p.txHash.toLowerCase()) throw problem('NEGOTIATION_STATE', `negotiation ${p.id} is already deployed by ${row.deploy_tx_hash}`);
  return { negotiation: row, market: await deployedMarketOf(deps.db, row) };
}

/** The receipt of a successful transaction: DEPLOY_TX_PENDING (Retry-After: 2), NOT_FOUND or DEPLOY_TX_REVERTED otherwise. */
async function requireMinedReceipt(chain: ChainService, txHash: Hex): Promise<TransactionReceipt> {
  const receipt = await chain.receiptOf(txHash);
  if (!receipt) {
    const pending = await chain.transactionOf(txHash);
    if (pending) throw problem('DEPLOY_TX_PENDING', `transaction ${txHash} is not mined yet; retry when it is`, { headers: { 'Retry-After': '2' } });
    throw problem('NOT_FOUND', `transaction ${txHash} is not known to chain ${chain.chainId}`);
  }
  if (receipt.status !== 'success') throw problem('DEPLOY_TX_REVERTED', `transaction ${txHash} reverted; nothing was created (check approvals and balances with prepare-deploy)`);
  return receipt;
}
