// A payout step the protocol sends once under a fixed operation id per step (a market's fee collection, its bond, its
// residual): a live attempt is waited for, never sent twice; one that reverted or was dropped gives way to the next
// attempt (src/services/resolution/relay-step.ts currentAttempt). Returns the settled transaction and its receipt.
import type { Address, Hex, TransactionReceipt } from 'viem';
import type { RelayedTx } from '../../chain/relayer.ts';
import { currentAttempt } from '../resolution/relay-step.ts';
import type { ClaimDeps } from './deps.ts';

export async function sendOnce(deps: ClaimDeps, step: string, to: Address, data: Hex): Promise<{ tx: RelayedTx; receipt: TransactionReceipt | null }> {
  const { operationId, live } = await currentAttempt(deps.relayer, step);
  const tx = await deps.guard(() => (live ? deps.relayer.waitFor(operationId) : deps.relayer.send({ operationId, idempotencyKey: operationId, to, data })));
  const receipt = tx.state === 'confirmed' ? await deps.guard(() => deps.client.getTransactionReceipt({ hash: tx.txHash as Hex })) : null;
  return { tx, receipt };
}
