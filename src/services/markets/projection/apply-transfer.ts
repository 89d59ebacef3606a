// The market projection (docs/markets.md): an outcome-token transfer kept once, keyed by its log (chain, tx, log
// index), and both holders' positions moved with it.
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../../db/schema.ts';

export interface TransferLog {
  chainId: number;
  txHash: string;
  logIndex: number;
  batchIndex: number;
  blockNumber: bigint;
  market: string;
  outcome: number;
  from: string;
  to: string;
  amount: bigint;
}

/** Where a mint comes from and a burn goes: no holder. */
export const ZERO = '0x0000000000000000000000000000000000000000';

/** Records an outcome-token transfer (mint, burn or move) and updates both holders' positions (once). */
export async function applyTransfer(trx: Transaction<DB>, t: TransferLog): Promise<boolean> {
  const market = t.market.toLowerCase();
  const inserted = await trx
    .insertInto('outcome_transfers')
    .values({
      chain_id: t.chainId,
      tx_hash: t.txHash,
      log_index: t.logIndex,
      batch_index: t.batchIndex,
      block_number: t.blockNumber.toString(),
      market,
      outcome: t.outcome,
      from_address: t.from.toLowerCase(),
      to_address: t.to.toLowerCase(),
      amount: t.amount,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('log_index')
    .executeTakeFirst();
  if (!inserted || t.amount === 0n) return Boolean(inserted);
  // Update first: PostgreSQL checks CHECK (shares >= 0) on the proposed row of an upsert, so a negative delta
  // cannot go through INSERT … ON CONFLICT.
  const move = async (holder: string, delta: bigint) => {
    const updated = await trx
      .updateTable('market_positions')
      .set({ shares: sql`shares + ${delta.toString()}::numeric` })
      .where('chain_id', '=', t.chainId)
      .where('market', '=', market)
      .where('holder', '=', holder)
      .where('outcome', '=', t.outcome)
      .returning('shares')
      .executeTakeFirst();
    if (!updated) await trx.insertInto('market_positions').values({ chain_id: t.chainId, market, holder, outcome: t.outcome, shares: delta }).execute();
  };
  if (t.from.toLowerCase() !== ZERO) await move(t.from.toLowerCase(), -t.amount);
  if (t.to.toLowerCase() !== ZERO) await move(t.to.toLowerCase(), t.amount);
  await trx.deleteFrom('market_positions').where('chain_id', '=', t.chainId).where('market', '=', market).where('shares', '=', '0').execute();
  return true;
}
