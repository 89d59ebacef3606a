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
import type { DB } from '../../../db/schema.ts';
import { ENGINE_CONFIG, type OrderLoopError, type OrderTerms } from './types.ts';

/** The owner's available balance is short of what the order would reserve (`assetId`, `required`, `available`). */
export type InsufficientBalanceError = OrderLoopError<'INSUFFICIENT_BALANCE'>;

/** What an order reserves while it can still fill: collateral (buys: cost plus the most fee it could pay) or shares (sells). */
export function reservationOf(action: OrderAction, priceBps: number, remaining: bigint): bigint {
  if (action === 'sell') return remaining;
  return costOf(remaining, priceBps) + takerFeeOf(remaining, priceBps, ENGINE_CONFIG.takerFeeBps);
}

/** The ledger asset an order of the market reserves: collateral for a buy, shares of its outcome for a sell. */
export const reservedAssetOf = (marketId: bigint, order: { action: OrderAction; outcome: Outcome }): bigint => (order.action === 'buy' ? COLLATERAL_ASSET : outcomeAsset(marketId, order.outcome));

/**
 * The available balances of a batch's owners on one market — collateral and both outcomes' shares — as read at the
 * start of the batch's transaction (under the owners' placement locks), then kept in step with the batch in memory.
 */
export class Availability {
  readonly #marketId: bigint;
  readonly #feeAccount: Account;
  // owner → asset id → available (ledger balance minus resting reservations).
  readonly #available: Map<Account, Map<bigint, bigint>>;

  private constructor(marketId: bigint, feeAccount: Account, available: Map<Account, Map<bigint, bigint>>) {
    this.#marketId = marketId;
    this.#feeAccount = feeAccount;
    this.#available = available;
  }

  /**
   * The statement that reads the owners' balances and reservations at once, so a fill committed meanwhile by another market's
   * transaction (these owners' resting orders may be its makers) is seen in both or in neither. The owners go as one
   * array, so the statement is one text (kept prepared) whatever their number.
   */
  static read(trx: Transaction<DB>, feeAccount: Account, marketId: bigint, owners: readonly Account[]): Step<Availability> {
    const assets = [COLLATERAL_ASSET, outcomeAsset(marketId, 0), outcomeAsset(marketId, 1)] as const;
    const market = marketId.toString();
    const balance = (asset: bigint) => sql`coalesce((SELECT balance FROM b WHERE b.account = o.owner AND b.asset_id = ${asset.toString()}::numeric), 0)`;
    const query = sql`
      WITH o (owner) AS (SELECT unnest(${[...owners]}::text[])),
      b AS (SELECT account, asset_id, balance FROM ledger_balances WHERE account IN (SELECT owner FROM o) AND asset_id IN (${sql.join(assets.map((a) => a.toString()))})),
      r AS (
        SELECT owner,
          sum(reserved) FILTER (WHERE action = 'buy') AS buys,
          sum(reserved) FILTER (WHERE action = 'sell' AND market_id = ${market} AND outcome = 0) AS sells0,
          sum(reserved) FILTER (WHERE action = 'sell' AND market_id = ${market} AND outcome = 1) AS sells1
        FROM orders WHERE owner IN (SELECT owner FROM o) AND status = 'resting' GROUP BY owner)
      SELECT o.owner,
        (${balance(assets[0])} - coalesce(r.buys, 0))::text AS collateral,
        (${balance(assets[1])} - coalesce(r.sells0, 0))::text AS shares0,
        (${balance(assets[2])} - coalesce(r.sells1, 0))::text AS shares1
      FROM o LEFT JOIN r ON r.owner = o.owner`.compile(trx);
    return {
      query,
      read: (result) => {
        const rows = result.rows as { owner: Account; collateral: string; shares0: string; shares1: string }[];
        const available = new Map(rows.map((r) => [r.owner, new Map([[assets[0], BigInt(r.collateral)], [assets[1], BigInt(r.shares0)], [assets[2], BigInt(r.shares1)]])]));
        return new Availability(marketId, feeAccount, available);
      },
    };
  }

  /** Refuses the order unless its owner has its whole reservation available now. */
  require(owner: Account, order: OrderTerms): void {
    const asset = reservedAssetOf(this.#marketId, order);
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

  /** An order of `owner` now reserves `delta` more (negative: less) of `asset`. */
  reserve(owner: Account, asset: bigint, delta: bigint): void {
    this.#add(owner, asset, -delta);
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
