// The market projection (docs/markets.md): a creator's collected fees taken off the market's accrued ones.
import { sql, type Transaction } from 'kysely';
import type { Clock } from '../../../core/clock.ts';
import type { DB } from '../../../db/schema.ts';

/** A creator collected accrued fees: the marketBalance drops by the amount (once per log). */
export async function applyCreatorFeesCollected(trx: Transaction<DB>, clock: Clock, c: { chainId: number; market: string; amount: bigint }): Promise<void> {
  await trx
    .updateTable('markets')
    .set({ creator_fees: sql`greatest(creator_fees - ${c.amount.toString()}::numeric, 0)`, updated_at: clock.now() })
    .where('chain_id', '=', c.chainId)
    .where('address', '=', c.market.toLowerCase())
    .execute();
}
