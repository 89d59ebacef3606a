/**
 * Reservations (docs/orderbook.md "The order loop"): a resting order reserves what it can still spend, and a new
 * order needs its reservation available — the owner's ledger balance minus what its other resting orders reserve.
 */
import { sql, type Transaction } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import { costOf } from '../../../core/ledger/engine.ts';
import { COLLATERAL_ASSET, outcomeAsset, type Account } from '../../../core/ledger/types.ts';
import { takerFeeOf } from '../../../core/orderbook/engine.ts';
import type { OrderAction, Outcome } from '../../../core/orderbook/types.ts';
import { baseUnitsOfShares } from '../../../core/orderbook/units.ts';
import type { DB } from '../../../db/schema.ts';
import { ENGINE_CONFIG, type OrderLoopError, type OrderTerms } from './types.ts';

/** The owner's available balance is short of what the order would reserve (`assetId`, `required`, `available`). */
export type InsufficientBalanceError = OrderLoopError<'INSUFFICIENT_BALANCE'>;

/** The ledger asset an order reserves: collateral for a buy, shares of its market's outcome for a sell. */
type ReservedAsset = { id: bigint; marketId?: undefined } | { id: bigint; marketId: bigint; outcome: Outcome };

/** What an order reserves while it can still fill: collateral (buys: cost plus the most fee it could pay) or shares (sells). */
export function reservationOf(action: OrderAction, priceBps: number, remaining: bigint): bigint {
  if (action === 'sell') return remaining;
  return costOf(remaining, priceBps) + takerFeeOf(remaining, priceBps, ENGINE_CONFIG.takerFeeBps);
}

/** Refuses the order unless its owner has its reservation available (read under the owner's placement lock). */
export async function requireAvailable(trx: Transaction<DB>, owner: Account, marketId: bigint, order: OrderTerms): Promise<void> {
  const asset: ReservedAsset = order.action === 'buy' ? { id: COLLATERAL_ASSET } : { id: outcomeAsset(marketId, order.outcome), marketId, outcome: order.outcome };
  const need = reservationOf(order.action, order.priceBps, order.shares);
  const have = await available(trx, owner, asset);
  if (have < need) {
    // Told in base units like every amount on the wire (docs/units.md): the ledger counts outcome assets in whole shares.
    const units = (n: bigint) => (asset.marketId === undefined ? n : baseUnitsOfShares(n)).toString();
    throw problem('INSUFFICIENT_BALANCE', `this order needs ${units(need)} base units of ledger asset ${asset.id} available; you have ${units(have)} (balance minus what your resting orders reserve)`, {
      extensions: { assetId: asset.id.toString(), required: units(need), available: units(have) },
    });
  }
}

/** The owner's available balance of an asset: ledger balance minus what its resting orders reserve (one statement). */
async function available(trx: Transaction<DB>, owner: Account, asset: ReservedAsset): Promise<bigint> {
  // Buys reserve collateral; sells reserve shares of their market's outcome.
  const reserving = asset.marketId === undefined ? sql`action = 'buy'` : sql`action = 'sell' AND market_id = ${asset.marketId.toString()} AND outcome = ${asset.outcome}`;
  const row = await sql<{ available: string }>`
    SELECT (coalesce((SELECT balance FROM ledger_balances WHERE account = ${owner} AND asset_id = ${asset.id.toString()}::numeric), 0)
      - coalesce((SELECT sum(reserved) FROM orders WHERE owner = ${owner} AND status = 'resting' AND ${reserving}), 0))::text AS available`.execute(trx);
  return BigInt(row.rows[0]!.available);
}
