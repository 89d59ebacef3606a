/**
 * Where trades enter the leaderboards (docs/leaderboard.md "Maintenance"): the indexer and the order loop append one
 * pending leg per wallet side, in the transaction that projects the trade or settles the fill, and nothing else. So a
 * trade is counted exactly when it is projected, and the hot paths never touch the shared aggregate rows. A reorg
 * drops the pending legs of the trades it removes and flags the folded ones for the updater to take back.
 */
import { sql, type Transaction } from 'kysely';
import type { Step } from '../../db/pipeline.ts';
import { unnestRows } from '../../db/unnest.ts';
import type { DB } from '../../db/schema.ts';

/** A Trade log just projected (once: the projection inserted its row). */
export interface TradeRef {
  chainId: number;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
}

export async function enqueueTradeLegs(trx: Transaction<DB>, trades: readonly TradeRef[]): Promise<void> {
  if (trades.length === 0) return;
  await trx
    .insertInto('leaderboard_legs')
    .values(trades.map((t) => ({ source: 'trade' as const, role: 'trader' as const, chain_id: t.chainId, tx_hash: t.txHash, log_index: t.logIndex, block_number: t.blockNumber.toString() })))
    .execute();
}

/** Fills just recorded (order_fills ids, in fill order): a maker and a taker leg each (the statement; null: no fill). */
export function enqueueFillLegs(trx: Transaction<DB>, chainId: number, fillIds: readonly string[]): Step<void> | null {
  if (fillIds.length === 0) return null;
  const query = sql`INSERT INTO leaderboard_legs (source, role, chain_id, fill_id)
    SELECT 'fill', u.role, ${chainId}::int, u.fill_id::bigint FROM ${unnestRows('u', ['fill_id', 'role'], fillIds.flatMap((id) => [[id, 'maker'], [id, 'taker']]))}`.compile(trx);
  return { query, read: () => undefined };
}

/** A reorg back to `ancestor`: legs of the trades above it are dropped (pending) or flagged for the updater (folded). */
export async function revertTradeLegsAbove(trx: Transaction<DB>, chainId: number, ancestor: bigint): Promise<void> {
  const above = ancestor.toString();
  await sql`DELETE FROM leaderboard_legs WHERE source = 'trade' AND chain_id = ${chainId} AND block_number > ${above} AND state IN ('pending', 'skipped')`.execute(trx);
  await sql`UPDATE leaderboard_legs SET state = 'reverted' WHERE source = 'trade' AND chain_id = ${chainId} AND block_number > ${above} AND state = 'folded'`.execute(trx);
}
