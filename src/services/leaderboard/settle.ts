/**
 * Settlement (docs/leaderboard.md "P&L"): once a market is final (resolved or void, as the indexer projected the
 * resolver), every position in it is realized at its settlement value on the day the resolution became final, and it
 * counts no unrealized P&L any more. A market whose resolution a reorg took back is unsettled the same way backwards;
 * one whose final outcome changed is unsettled and settled again. One transaction per market.
 */
import { sql } from 'kysely';
import { epochDay } from '../../core/leaderboard/boards.ts';
import { toUsdMicro, valueAt } from '../../core/leaderboard/money.ts';
import { settlementValue } from '../../core/leaderboard/position.ts';
import type { LeaderboardDeps } from './deps.ts';
import { addDays } from './aggregates.ts';
import { loadMarketFacts, marketKey } from './market-facts.ts';
import { preferIndexes } from './plan.ts';
import { addMove, refreshTotals, type DayDelta } from './totals.ts';

interface Candidate {
  chain_id: number;
  market: string;
  settled_outcome: number | null;
  final_outcome: number | null;
  finalized_at: string | null;
}

/** Settles (or unsettles) up to `limit` markets whose positions disagree with their resolution; answers how many. */
export async function settleMarkets(deps: LeaderboardDeps, limit: number): Promise<number> {
  const { rows } = await sql<Candidate>`
    SELECT k.chain_id, k.market, k.settled_outcome,
      CASE WHEN r.phase = 'resolved' THEN r.final_outcome END AS final_outcome,
      r.record->>'finalizedAt' AS finalized_at
    FROM leaderboard_markets k LEFT JOIN market_resolutions r ON r.chain_id = k.chain_id AND r.market = k.market
    WHERE k.settled_outcome IS DISTINCT FROM (CASE WHEN r.phase = 'resolved' THEN r.final_outcome END)
    ORDER BY k.chain_id, k.market
    LIMIT ${limit}`.execute(deps.db);
  for (const c of rows) await settleOne(deps, c);
  return rows.length;
}

async function settleOne(deps: LeaderboardDeps, c: Candidate): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await preferIndexes(trx);
    const locked = await trx.selectFrom('leaderboard_markets').select(['settled_outcome', 'settled_day']).where('chain_id', '=', c.chain_id).where('market', '=', c.market).forUpdate().executeTakeFirst();
    if (!locked) return;
    const facts = (await loadMarketFacts(trx, deps, [{ chainId: c.chain_id, market: c.market }])).get(marketKey(c.chain_id, c.market));
    if (!facts) return;
    const positions = await trx.selectFrom('leaderboard_positions').selectAll().where('chain_id', '=', c.chain_id).where('market', '=', c.market).orderBy('wallet').orderBy('outcome').forUpdate().execute();
    const deltas: DayDelta[] = [];
    const wallets = new Set<string>();
    let refold = false;
    // Unsettle what a previous settlement realized, back to marks at the latest price.
    if (locked.settled_outcome !== null) {
      refold = true;
      for (const p of positions) {
        if (p.settled === null) continue;
        const marked = facts.rule ? toUsdMicro(valueAt(BigInt(p.shares), facts.prices[p.outcome] ?? 0n) - BigInt(p.basis), facts.rule) : 0n;
        p.marked = marked.toString();
        deltas.push({ wallet: p.wallet, category: p.category, day: locked.settled_day!, realized: -BigInt(p.settled), volume: 0n, trades: 0 });
        p.settled = null;
        wallets.add(p.wallet);
      }
    }
    const day = c.final_outcome === null ? null : epochDay(c.finalized_at ? new Date(c.finalized_at) : deps.clock.now());
    const moves = new Map<string, bigint>();
    if (c.final_outcome !== null && facts.rule) {
      for (const p of positions) {
        const realized = toUsdMicro(settlementValue(BigInt(p.shares), p.outcome, c.final_outcome, facts.outcomeCount) - BigInt(p.basis), facts.rule);
        p.settled = realized.toString();
        addMove(moves, p.wallet, p.category, -BigInt(p.marked));
        p.marked = '0';
        if (realized !== 0n) deltas.push({ wallet: p.wallet, category: p.category, day: day!, realized, volume: 0n, trades: 0 });
        wallets.add(p.wallet);
      }
    }
    for (const p of positions) {
      await trx.updateTable('leaderboard_positions').set({ marked: p.marked, settled: p.settled }).where('chain_id', '=', p.chain_id).where('market', '=', p.market).where('wallet', '=', p.wallet).where('outcome', '=', p.outcome).execute();
    }
    await addDays(trx, deltas);
    if (refold && wallets.size > 0) await sql`DELETE FROM leaderboard_days WHERE trades = 0 AND realized = 0 AND volume = 0 AND wallet IN (${sql.join([...wallets])})`.execute(trx);
    await trx
      .updateTable('leaderboard_markets')
      .set({ settled_outcome: c.final_outcome, settled_day: day, dirty: c.final_outcome === null })
      .where('chain_id', '=', c.chain_id)
      .where('market', '=', c.market)
      .execute();
    await refreshTotals(trx, epochDay(deps.clock.now()), wallets, refold ? [] : deltas, refold ? wallets : new Set(), moves);
  });
}
