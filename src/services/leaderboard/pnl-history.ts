/**
 * GET /profile/:address/pnl-history (docs/leaderboard.md "P&L history"): the wallet's equity curve, one point per UTC
 * day that realized or traded something, each with that day's realized P&L and the running total, read from its day
 * rows (summed over categories) by the primary key; the totals are its all-time board row (unrealized at the latest
 * marks). A wallet that never traded answers no points and zero totals.
 */
import { getAddress } from 'viem';
import { isoDay } from '../../core/leaderboard/boards.ts';
import { maxDrawdown } from '../../core/leaderboard/curve.ts';
import type { LeaderboardDeps } from './deps.ts';
import type { PnlHistory, PnlPoint } from './types.ts';

export async function readPnlHistory(deps: Pick<LeaderboardDeps, 'db' | 'clock'>, address: string): Promise<PnlHistory> {
  const wallet = address.toLowerCase();
  const asOf = deps.clock.now().toISOString();
  const days = await deps.db
    .selectFrom('leaderboard_days')
    .select(['day', (eb) => eb.fn.sum<string>('realized').as('realized'), (eb) => eb.fn.sum<string>('volume').as('volume'), (eb) => eb.fn.sum<string>('trades').as('trades')])
    .where('wallet', '=', wallet)
    .groupBy('day')
    .orderBy('day')
    .execute();
  const totals = await deps.db.selectFrom('leaderboard_totals').selectAll().where('wallet', '=', wallet).where('period', '=', 'all').where('category', '=', 'ALL').executeTakeFirst();
  const agent = await deps.db.selectFrom('agents').select('name').where('wallet_address', '=', wallet).executeTakeFirst();
  let cumulative = 0n;
  const points: PnlPoint[] = days.map((d) => {
    cumulative += BigInt(d.realized);
    return { date: isoDay(d.day), realizedPnl: BigInt(d.realized).toString(), cumulativeRealizedPnl: cumulative.toString(), volume: BigInt(d.volume).toString(), trades: Number(d.trades) };
  });
  return {
    walletAddress: getAddress(wallet),
    agentName: agent?.name ?? null,
    unit: 'usd_micro',
    asOf,
    points,
    totals: {
      realizedPnl: totals?.realized ?? '0',
      unrealizedPnl: totals?.unrealized ?? '0',
      pnl: totals?.pnl ?? '0',
      volume: totals?.volume ?? '0',
      trades: totals?.trades ?? 0,
      // The same curve as the points (the stored row folds it without its history).
      maxDrawdown: maxDrawdown(days.map((d) => BigInt(d.realized))).toString(),
    },
  };
}
