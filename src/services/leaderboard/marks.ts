/**
 * Marks positions to market (docs/leaderboard.md "P&L"): the markets a fold made dirty (a trade moved their prices)
 * have every unsettled position re-valued at the latest price, and each holder's change of unrealized P&L is left for
 * the totals step (leaderboard_pending), in one transaction per batch of markets. The cost follows the positions of
 * the markets that traded since the last marks, not the number of trades.
 */
import { sql } from 'kysely';
import { toUsdMicro, valueAt } from '../../core/leaderboard/money.ts';
import { unnestRows } from '../../db/unnest.ts';
import type { LeaderboardDeps } from './deps.ts';
import { loadMarketFacts, marketKey } from './market-facts.ts';
import { preferIndexes } from './plan.ts';
import { addMove, addPending } from './totals.ts';

/** Marks the positions of up to `limit` dirty markets; answers how many markets. */
export async function markDirtyMarkets(deps: LeaderboardDeps, limit: number): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    await preferIndexes(trx);
    const dirty = await trx.selectFrom('leaderboard_markets').select(['chain_id', 'market']).where('dirty', '=', true).orderBy('chain_id').orderBy('market').limit(limit).forUpdate().skipLocked().execute();
    if (dirty.length === 0) return 0;
    const markets = await loadMarketFacts(trx, deps, dirty.map((d) => ({ chainId: d.chain_id, market: d.market })));
    const positions = await trx
      .selectFrom('leaderboard_positions')
      .select(['chain_id', 'market', 'wallet', 'outcome', 'category', 'shares', 'basis', 'marked'])
      .where('chain_id', '=', sql<number>`ANY(${[...new Set(dirty.map((d) => d.chain_id))]}::int[])`)
      .where('market', '=', sql<string>`ANY(${dirty.map((d) => d.market)}::text[])`)
      .where('settled', 'is', null)
      .orderBy('chain_id')
      .orderBy('market')
      .orderBy('wallet')
      .orderBy('outcome')
      .execute();
    const changed: { chain_id: number; market: string; wallet: string; outcome: number; marked: bigint }[] = [];
    const moves = new Map<string, bigint>();
    for (const p of positions) {
      const facts = markets.get(marketKey(p.chain_id, p.market));
      if (!facts) continue;
      const marked = facts.settledOutcome !== null || !facts.rule ? 0n : toUsdMicro(valueAt(BigInt(p.shares), facts.prices[p.outcome] ?? 0n) - BigInt(p.basis), facts.rule);
      const delta = marked - BigInt(p.marked);
      if (delta === 0n) continue;
      changed.push({ chain_id: p.chain_id, market: p.market, wallet: p.wallet, outcome: p.outcome, marked });
      addMove(moves, p.wallet, p.category, delta);
    }
    // One statement text whatever the number of rows (src/db/unnest.ts): kept prepared, planned once.
    if (changed.length > 0) {
      await sql`
        UPDATE leaderboard_positions p SET marked = v.marked::numeric
        FROM ${unnestRows('v', ['chain_id', 'market', 'wallet', 'outcome', 'marked'], changed.map((c) => [c.chain_id, c.market, c.wallet, c.outcome, c.marked]))}
        WHERE p.chain_id = v.chain_id::int AND p.market = v.market AND p.wallet = v.wallet AND p.outcome = v.outcome::smallint`.execute(trx);
    }
    await addPending(trx, [], moves);
    await trx
      .updateTable('leaderboard_markets')
      .set({ dirty: false })
      .where('chain_id', '=', sql<number>`ANY(${[...new Set(dirty.map((d) => d.chain_id))]}::int[])`)
      .where('market', '=', sql<string>`ANY(${dirty.map((d) => d.market)}::text[])`)
      .execute();
    return dirty.length;
  });
}
