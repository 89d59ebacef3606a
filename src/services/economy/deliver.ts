/**
 * Card deliveries (docs/economy.md "Delivery, exactly once"): each paid order is delivered by PmSale.deliver(orderId,
 * wallet, amount), sent by the relayer. Three locks make it once: the relayer's idempotency key (one transaction per
 * attempt, rebroadcast as the same bytes after a crash), the contract's delivered[orderId] (a second delivery reverts
 * AlreadyDelivered), and the order's state (paid → delivered, conditional). A reverted attempt (inventory short, sale
 * paused) leaves the order paid and is tried again later under the next attempt number, unless the chain says the
 * order was delivered already, which settles it.
 */
import { encodeFunctionData, type Hex } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import { cardOrderId } from '../../core/economy/terms.ts';
import type { EconomyDeps } from './deps.ts';
import type { CardPurchaseRow } from './purchase-view.ts';

/** Orders delivered per pass. */
const PASS_LIMIT = 20;

export interface DeliveryPass {
  delivered: number;
  retried: number;
}

export async function deliverPaid(deps: EconomyDeps): Promise<DeliveryPass> {
  const rows = await deps.db.selectFrom('card_purchases').selectAll().where('state', '=', 'paid').orderBy('paid_at').limit(PASS_LIMIT).execute();
  const pass: DeliveryPass = { delivered: 0, retried: 0 };
  for (const row of rows) {
    if (await deliverOne(deps, row)) pass.delivered++;
    else pass.retried++;
  }
  return pass;
}

async function deliverOne(deps: EconomyDeps, row: CardPurchaseRow): Promise<boolean> {
  const { sale } = deps;
  if (!sale || row.session_id === null) return false;
  const orderId = cardOrderId(row.session_id);
  const abi = loadArtifact('PmSale').abi;
  const operationId = `pm-card:${deps.chainId}:${row.session_id}:${row.delivery_attempt}`;
  const data = encodeFunctionData({ abi, functionName: 'deliver', args: [orderId, row.wallet_address as Hex, BigInt(row.pm_amount)] } as never);
  const tx = await deps.relayer.send({ operationId, idempotencyKey: operationId, to: sale, data });
  const deliveredOnChain = tx.state === 'confirmed' || ((await deps.guard(() => deps.client.readContract({ address: sale, abi, functionName: 'delivered', args: [orderId] }))) as boolean);
  if (deliveredOnChain) {
    // The confirmed attempt's hash; an order the chain shows delivered by an earlier attempt keeps the hash it has, if any.
    const txHash = tx.state === 'confirmed' ? tx.txHash : row.delivery_tx;
    await deps.db
      .updateTable('card_purchases')
      .set({ state: 'delivered', delivered_at: deps.clock.now(), delivery_tx: txHash, last_error: null })
      .where('order_id', '=', row.order_id)
      .where('state', '=', 'paid')
      .execute();
    return true;
  }
  deps.log.warn({ sessionId: row.session_id, txHash: tx.txHash, state: tx.state }, 'card delivery did not go through; trying again on a later pass');
  await deps.db
    .updateTable('card_purchases')
    .set({ delivery_attempt: row.delivery_attempt + 1, last_error: `delivery ${tx.txHash} ${tx.state}` })
    .where('order_id', '=', row.order_id)
    .where('delivery_attempt', '=', row.delivery_attempt)
    .execute();
  return false;
}
