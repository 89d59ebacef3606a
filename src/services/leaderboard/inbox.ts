/**
 * Where trades enter the leaderboards (docs/leaderboard.md "The inbox"): the indexer appends one pending leg per Trade,
 * in the transaction that projects it, and nothing else; a reorg drops the pending legs of the trades it removes and
 * flags the folded ones for the updater to take back. Order-book fills need no inbox: the fold reads them after its
 * cursor (fold.ts, migration 0038), so the order loop never touches the leaderboards' rows.
 */
import { sql, type Transaction } from 'kysely';
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

/** A reorg back to `ancestor`: legs of the trades above it are dropped (pending) or flagged for the updater (folded). */
export async function revertTradeLegsAbove(trx: Transaction<DB>, chainId: number, ancestor: bigint): Promise<void> {
  const above = ancestor.toString();
  await sql`DELETE FROM leaderboard_legs WHERE source = 'trade' AND chain_id = ${chainId} AND block_number > ${above} AND state IN ('pending', 'skipped')`.execute(trx);
  await sql`UPDATE leaderboard_legs SET state = 'reverted' WHERE source = 'trade' AND chain_id = ${chainId} AND block_number > ${above} AND state = 'folded'`.execute(trx);
}
