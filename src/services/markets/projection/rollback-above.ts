// The market projection (docs/markets.md): a reorg's undo of everything above the common ancestor.
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../../db/schema.ts';
// Leaderboards: a reorg takes the legs of the trades it undoes back (docs/leaderboard.md).
import { revertTradeLegsAbove } from '../../leaderboard/inbox.ts';
import { ZERO } from './apply-transfer.ts';

/**
 * Undoes everything above `ancestor` (a reorg): trades and transfers are deleted, and the touched markets'
 * positions and trade aggregates are recomputed from what remains. Returns the markets touched; the caller
 * refreshes their chain-read state (prices, outstanding shares, creator fees) as of the ancestor block.
 */
export async function rollbackAbove(trx: Transaction<DB>, chainId: number, ancestor: bigint): Promise<string[]> {
  const above = ancestor.toString();
  await revertTradeLegsAbove(trx, chainId, ancestor);
  const tradeMarkets = await trx.deleteFrom('market_trades').where('chain_id', '=', chainId).where('block_number', '>', above).returning('market').execute();
  const transferMarkets = await trx.deleteFrom('outcome_transfers').where('chain_id', '=', chainId).where('block_number', '>', above).returning('market').execute();
  const payoutMarkets = await trx.deleteFrom('market_payouts').where('chain_id', '=', chainId).where('block_number', '>', above).returning('market').execute();
  const touched = [...new Set([...tradeMarkets, ...transferMarkets, ...payoutMarkets].map((r) => r.market))];
  for (const market of touched) {
    await trx.deleteFrom('market_positions').where('chain_id', '=', chainId).where('market', '=', market).execute();
    await sql`
      INSERT INTO market_positions (chain_id, market, holder, outcome, shares)
      SELECT ${chainId}, ${market}, holder, outcome, sum(delta) FROM (
        SELECT to_address AS holder, outcome, amount AS delta FROM outcome_transfers WHERE chain_id = ${chainId} AND market = ${market} AND to_address <> ${ZERO}
        UNION ALL
        SELECT from_address AS holder, outcome, -amount AS delta FROM outcome_transfers WHERE chain_id = ${chainId} AND market = ${market} AND from_address <> ${ZERO}
      ) moves GROUP BY holder, outcome HAVING sum(delta) <> 0`.execute(trx);
    await sql`
      UPDATE markets SET
        volume = coalesce((SELECT sum(cost) FROM market_trades t WHERE t.chain_id = ${chainId} AND t.market = ${market}), 0),
        trade_count = (SELECT count(*) FROM market_trades t WHERE t.chain_id = ${chainId} AND t.market = ${market}),
        last_trade_at = (SELECT max(block_time) FROM market_trades t WHERE t.chain_id = ${chainId} AND t.market = ${market})
      WHERE chain_id = ${chainId} AND address = ${market}`.execute(trx);
  }
  await trx.deleteFrom('indexed_blocks').where('chain_id', '=', chainId).where('block_number', '>', above).execute();
  return touched;
}
