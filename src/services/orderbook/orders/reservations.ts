/**
 * Reservations (docs/orderbook.md "The order loop"): a resting order reserves what it can still spend, and a new
 * order needs its reservation available — the owner's ledger balance minus what its other resting orders reserve.
 * A batch of placements reads its owners' available balances once and follows in memory what each of its orders
 * changes (fills move ledger balances, new and filled orders change what is reserved), so an owner's second order
 * sees the first one exactly as it would one transaction later.
 */
import { sql, type Transaction } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import { costOf, movementsOf } from '../../../core/ledger/engine.ts';
import { COLLATERAL_ASSET, outcomeAsset, type Account, type LedgerOperation } from '../../../core/ledger/types.ts';
import { takerFeeOf } from '../../../core/orderbook/engine.ts';
import type { OrderAction, Outcome } from '../../../core/orderbook/types.ts';
import { baseUnitsOfShares } from '../../../core/orderbook/units.ts';
import type { Step } from '../../../db/pipeline.ts';
import { unnestRows } from '../../../db/unnest.ts';
import type { DB } from '../../../db/schema.ts';
import { ENGINE_CONFIG, type OrderLoopError, type OrderTerms } from './types.ts';

/** The owner's available balance is short of what the order would reserve (`assetId`, `required`, `available`). */
export type InsufficientBalanceError = OrderLoopError<'INSUFFICIENT_BALANCE'>;

/** What an owner's resting orders reserve more (negative: less) of a ledger asset after a change. */
export interface ReservationChange {
  owner: Account;
  assetId: bigint;
  delta: bigint;
}

/**
 * Adds the changes (any number per owner and asset) to their owners' rows of order_reservations (migration 0034), in
 * one statement that takes the rows in (owner, asset) order, so two transactions adding to the same owners lock their
 * rows in the same order (null: no change). Every change is one to what an order row reserves, in the transaction that writes the order row, so no row
 * can go below zero; one that would fails the transaction (overReleased). (Not a check constraint: PostgreSQL checks
 * the row an upsert proposes to insert, the change itself, before it finds the row to add it to.)
 */
export function addReservations(trx: Transaction<DB>, changes: readonly ReservationChange[]): Step<void> | null {
  // One row per owner and asset (an upsert may not touch a row twice), the changes to it summed.
  const summed = new Map<string, ReservationChange>();
  for (const c of changes) {
    const key = `${c.owner}:${c.assetId}`;
    const row = summed.get(key);
    if (row) row.delta += c.delta;
    else summed.set(key, { ...c });
  }
  const rows = [...summed.values()].filter((c) => c.delta !== 0n);
  if (rows.length === 0) return null;
  const query = sql`
    INSERT INTO order_reservations AS r (owner, asset_id, reserved)
    SELECT u.owner, u.asset_id::numeric, u.delta::numeric FROM ${unnestRows('u', ['owner', 'asset_id', 'delta'], rows.map((c) => [c.owner, c.assetId, c.delta]))}
    ORDER BY u.owner, u.asset_id::numeric
    ON CONFLICT (owner, asset_id) DO UPDATE SET reserved = r.reserved + EXCLUDED.reserved
    RETURNING owner, asset_id::text, reserved::text`.compile(trx);
  return { query, read: ({ rows }) => overReleased(rows) };
}

/** Refuses rows an upsert of order_reservations left below zero: what the orders reserve and the rows disagree. */
function overReleased(rows: readonly Record<string, unknown>[]): void {
  const below = rows.find((r) => BigInt(r.reserved as string) < 0n);
  if (below) throw new Error(`order book: the reservations of ${String(below.owner)} in asset ${String(below.asset_id)} would be ${String(below.reserved)}: more was released than its orders reserved`);
}

/** What an order reserves while it can still fill: collateral (buys: cost plus the most fee it could pay) or shares (sells). */
export function reservationOf(action: OrderAction, priceBps: number, remaining: bigint): bigint {
  if (action === 'sell') return remaining;
  return costOf(remaining, priceBps) + takerFeeOf(remaining, priceBps, ENGINE_CONFIG.takerFeeBps);
}

/** The ledger asset an order of the market reserves: collateral for a buy, shares of its outcome for a sell. */
export const reservedAssetOf = (marketId: bigint, order: { action: OrderAction; outcome: Outcome }): bigint => (order.action === 'buy' ? COLLATERAL_ASSET : outcomeAsset(marketId, order.outcome));

/**
 * The available balances the orders of a batch need — each order's owner in the asset it reserves — as read at
 * the start of the batch's transaction (under the owners' placement locks), then kept in step with the batch in memory.
 * One instance serves every market of the batch: an owner's collateral is one balance whichever market spends it.
 */
export class Availability {
  readonly #feeAccount: Account;
  // owner → asset id → available (ledger balance minus resting reservations).
  readonly #available: Map<Account, Map<bigint, bigint>>;
  // What the batch changed of its owners' reservations, change by change (addReservations sums them).
  readonly #changes: ReservationChange[] = [];

  private constructor(feeAccount: Account, available: Map<Account, Map<bigint, bigint>>) {
    this.#feeAccount = feeAccount;
    this.#available = available;
  }

  /**
   * The statement that reads the owners' balances and reservations at once, so a fill committed meanwhile by another market's
   * transaction (these owners' resting orders may be its makers) is seen in both or in neither: one row of each per owner
   * and asset (order_reservations keeps what the resting orders reserve, migration 0034). Only the pairs the batch's
   * orders need are read (each order's owner and the asset it reserves): the batch's checks ask for nothing else, and its
   * fills move the others unseen (#add). The pairs go as two arrays, so the statement is one text (kept prepared)
   * whatever their number.
   */
  static read(trx: Transaction<DB>, feeAccount: Account, needs: readonly { owner: Account; asset: bigint }[]): Step<Availability> {
    const pairs = [...new Map(needs.map((n) => [`${n.owner}:${n.asset}`, n])).values()];
    const query = sql`
      SELECT o.owner, o.asset::text AS asset_id, (
        coalesce((SELECT balance FROM ledger_balances b WHERE b.account = o.owner AND b.asset_id = o.asset), 0)
        - coalesce((SELECT reserved FROM order_reservations r WHERE r.owner = o.owner AND r.asset_id = o.asset), 0))::text AS available
      FROM unnest(${pairs.map((n) => n.owner)}::text[], ${pairs.map((n) => String(n.asset))}::numeric[]) AS o (owner, asset)`.compile(trx);
    return {
      query,
      read: (result) => {
        const available = new Map<Account, Map<bigint, bigint>>();
        for (const r of result.rows as { owner: Account; asset_id: string; available: string }[]) {
          let held = available.get(r.owner);
          if (!held) available.set(r.owner, (held = new Map()));
          held.set(BigInt(r.asset_id), BigInt(r.available));
        }
        return new Availability(feeAccount, available);
      },
    };
  }

  /** Refuses the order (on market `marketId`) unless its owner has its whole reservation available now. */
  require(owner: Account, marketId: bigint, order: OrderTerms): void {
    const asset = reservedAssetOf(marketId, order);
    const need = reservationOf(order.action, order.priceBps, order.shares);
    const have = this.#available.get(owner)?.get(asset) ?? 0n;
    if (have < need) {
      // Told in base units like every amount on the wire (docs/units.md): the ledger counts outcome assets in whole shares.
      const units = (n: bigint) => (asset === COLLATERAL_ASSET ? n : baseUnitsOfShares(n)).toString();
      throw problem('INSUFFICIENT_BALANCE', `this order needs ${units(need)} base units of ledger asset ${asset} available; you have ${units(have)} (balance minus what your resting orders reserve)`, {
        extensions: { assetId: asset.toString(), required: units(need), available: units(have) },
      });
    }
  }

  /** An order of `owner` now reserves `delta` more (negative: less) of `asset`; kept for the owner's row (`changes`). */
  reserve(owner: Account, asset: bigint, delta: bigint): void {
    this.#add(owner, asset, -delta);
    if (delta !== 0n) this.#changes.push({ owner, assetId: asset, delta });
  }

  /** What the batch's orders reserve more or less than before it (the makers' owners included), change by change. */
  changes(): readonly ReservationChange[] {
    return this.#changes;
  }

  /** A match written to the ledger: its movements change the balances of the owners it touches. */
  settle(op: LedgerOperation): void {
    for (const m of movementsOf(op, this.#feeAccount)) {
      this.#add(m.from, m.id, -m.value);
      this.#add(m.to, m.id, m.value);
    }
  }

  #add(owner: Account, asset: bigint, delta: bigint): void {
    const held = this.#available.get(owner);
    // Only the batch's own owners are followed: nobody else places in it.
    if (held?.has(asset)) held.set(asset, held.get(asset)! + delta);
  }
}
