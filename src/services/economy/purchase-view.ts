// A card purchase as the API shows it (GET /economy/purchase-status/{sessionId}, and the checkout answer).
import type { Selectable } from 'kysely';
import type { CardPurchaseState, CardPurchasesTable } from '../../db/schema.ts';

export interface CardPurchaseView {
  sessionId: string;
  orderId: string;
  state: Exclude<CardPurchaseState, 'creating'>;
  provider: string;
  checkoutUrl: string;
  walletAddress: string;
  usd: number;
  pmWei: string;
  chainId: number;
  createdAt: string;
  expiresAt: string;
  paidAt: string | null;
  deliveredAt: string | null;
  delivery: { txHash: string; statusUrl: string } | null;
}

export type CardPurchaseRow = Selectable<CardPurchasesTable>;

export function cardPurchaseView(row: CardPurchaseRow): CardPurchaseView {
  if (row.session_id === null || row.checkout_url === null || row.state === 'creating') throw new Error(`card purchase ${row.order_id} has no session yet`);
  return {
    sessionId: row.session_id,
    orderId: row.order_id,
    state: row.state,
    provider: row.provider,
    checkoutUrl: row.checkout_url,
    walletAddress: row.wallet_address,
    usd: row.usd,
    pmWei: row.pm_amount,
    chainId: row.chain_id,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    paidAt: row.paid_at?.toISOString() ?? null,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    delivery: row.delivery_tx ? { txHash: row.delivery_tx, statusUrl: `/api/v1/transactions/${row.delivery_tx}?chainId=${row.chain_id}` } : null,
  };
}
