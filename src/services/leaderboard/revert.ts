/**
 * Takes back legs a reorg removed (docs/leaderboard.md "Reorgs"): the indexer flagged them reverted in its rollback
 * transaction; here, in one transaction, what each counted comes off the day rows and the creator days, each touched
 * position goes back to the state after its last leg still folded (a reorg removes the newest trades, so the removed
 * legs of a position are its last ones), the legs are deleted and the wallets' totals rebuilt.
 */
import { sql } from 'kysely';
import { epochDay } from '../../core/leaderboard/boards.ts';
import type { LeaderboardDeps } from './deps.ts';
import { addCreatorDays, addDays, dayDeltasOf, markDirty, positionKey, writePositions, type PositionState } from './aggregates.ts';
import { loadMarketFacts } from './market-facts.ts';
import { preferIndexes } from './plan.ts';
import { refreshTotals } from './totals.ts';

/** Takes back up to `limit` reverted legs, newest first; answers how many. */
export async function takeBackReverted(deps: LeaderboardDeps, limit: number): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    await preferIndexes(trx);
    const rows = await trx.selectFrom('leaderboard_legs').selectAll().where('state', '=', 'reverted').orderBy('id', 'desc').limit(limit).forUpdate().execute();
    if (rows.length === 0) return 0;
    const legs = rows.map((r) => ({
      chainId: r.chain_id,
      market: r.market!,
      wallet: r.wallet!,
      outcome: r.outcome!,
      day: r.day!,
      category: r.category!,
      realized: BigInt(r.realized!),
      volume: BigInt(r.volume!),
      creator: r.creator!,
      creatorVolume: BigInt(r.creator_volume!),
    }));
    await trx.deleteFrom('leaderboard_legs').where('id', 'in', rows.map((r) => r.id)).execute();

    const deltas = dayDeltasOf(legs, -1);
    await addDays(trx, deltas);
    await addCreatorDays(trx, legs, -1);
    // Each position as its last leg still folded left it (none: never held).
    const positions = new Map<string, PositionState>();
    for (const l of legs) {
      const key = positionKey(l.chainId, l.market, l.wallet, l.outcome);
      if (positions.has(key)) continue;
      const last = await trx
        .selectFrom('leaderboard_legs')
        .select(['shares_after', 'basis_after'])
        .where('source', '=', 'trade')
        .where('state', '=', 'folded')
        .where('chain_id', '=', l.chainId)
        .where('market', '=', l.market)
        .where('wallet', '=', l.wallet)
        .where('outcome', '=', l.outcome)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      positions.set(key, { position: { shares: BigInt(last?.shares_after ?? 0), basis: BigInt(last?.basis_after ?? 0) }, marked: 0n, settled: null, touched: true });
    }
    const markets = await loadMarketFacts(trx, deps, legs.map((l) => ({ chainId: l.chainId, market: l.market })));
    await writePositions(trx, positions, markets);
    await sql`DELETE FROM leaderboard_positions WHERE shares = 0 AND basis = 0 AND settled IS NULL AND wallet IN (${sql.join([...new Set(legs.map((l) => l.wallet))])})`.execute(trx);
    await markDirty(trx, legs);
    const wallets = new Set(legs.map((l) => l.wallet));
    // Days left with nothing (the removed legs were all they had) go, so no board counts them as active.
    await sql`DELETE FROM leaderboard_days WHERE trades = 0 AND realized = 0 AND volume = 0 AND wallet IN (${sql.join([...wallets])})`.execute(trx);
    await refreshTotals(trx, epochDay(deps.clock.now()), wallets, [], wallets);
    return rows.length;
  });
}
