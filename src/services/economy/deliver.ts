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
import { applySession } from './card-events.ts';
import { CREATING_TIMEOUT_MS } from './checkout.ts';
import { PaymentProviderUnavailable } from '../payments/provider.ts';

/** Orders delivered per pass. */
const PASS_LIMIT = 20;

export interface DeliveryPass {
  delivered: number;
  retried: number;
  /** Open orders past their session's expiry whose session was read again (a lost webhook, nobody reading the status). */
  reconciled: number;
  /** Orders whose session never came back from the provider (a crash between order and session), now failed. */
  abandoned: number;
}

export async function deliverPaid(deps: EconomyDeps): Promise<DeliveryPass> {
  const pass: DeliveryPass = { delivered: 0, retried: 0, ...(await reconcileStale(deps)) };
  const rows = await deps.db.selectFrom('card_purchases').selectAll().where('state', '=', 'paid').orderBy('paid_at').limit(PASS_LIMIT).execute();
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

/**
 * Before delivering: an order still `creating` after CREATING_TIMEOUT_MS never got its session (the process died
 * between the two, or the provider failed): it fails. An order still `open` past its session's expiry is asked of the
 * provider once more, so a payment whose webhook was lost is delivered even if nobody reads its status.
 */
async function reconcileStale(deps: EconomyDeps): Promise<{ reconciled: number; abandoned: number }> {
  const now = deps.clock.now();
  const abandoned = await deps.db
    .updateTable('card_purchases')
    .set({ state: 'failed', last_error: 'the provider session was never recorded' })
    .where('state', '=', 'creating')
    .where('created_at', '<', new Date(now.getTime() - CREATING_TIMEOUT_MS))
    .executeTakeFirst();
  let reconciled = 0;
  if (deps.provider) {
    const stale = await deps.db.selectFrom('card_purchases').select('session_id').where('state', '=', 'open').where('expires_at', '<', now).orderBy('expires_at').limit(PASS_LIMIT).execute();
    for (const { session_id } of stale) {
      try {
        const session = session_id ? await deps.provider.retrieveSession(session_id) : null;
        if (!session) {
          // The provider does not know it (any more): nothing can be paid on it.
          await deps.db.updateTable('card_purchases').set({ state: 'failed', last_error: 'the provider has no such session' }).where('session_id', '=', session_id).where('state', '=', 'open').execute();
          reconciled++;
        } else if ((await applySession(deps, session)) !== 'unchanged') reconciled++;
      } catch (err) {
        if (!(err instanceof PaymentProviderUnavailable)) throw err;
        deps.log.warn({ err, sessionId: session_id }, 'card provider unreachable while reconciling an expired session; trying again on a later pass');
        break;
      }
    }
  }
  return { reconciled, abandoned: Number(abandoned.numUpdatedRows) };
}
