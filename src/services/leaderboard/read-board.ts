/**
 * A board's first MAX_RANK (300) entries, read by index from the precomputed rows (leaderboard_totals for traders,
 * leaderboard_roles for creators and voters), with the agent name of each wallet that has one. Ties rank by wallet
 * address, ascending. The VOLUME board lists wallets that traded in the period.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { getAddress } from 'viem';
import { isTraderSort, MAX_RANK, type TraderSort } from '../../core/leaderboard/boards.ts';
import { ratioString } from '../../core/leaderboard/curve.ts';
import type { DB } from '../../db/schema.ts';
import { preferIndexes } from './plan.ts';
import type { BoardQuery, LeaderboardEntry } from './types.ts';

const COLUMN: Record<TraderSort, string> = { PNL: 'pnl', VOLUME: 'volume', RISK_ADJ_PNL: 'risk_adj' };

export async function readBoard(db: Kysely<DB>, q: BoardQuery): Promise<LeaderboardEntry[]> {
  // The rank index, whatever the planner's statistics say (plan.ts): never a sort of every wallet.
  return db.transaction().execute(async (trx) => {
    await preferIndexes(trx);
    return readRanked(trx, q);
  });
}

async function readRanked(db: Transaction<DB>, q: BoardQuery): Promise<LeaderboardEntry[]> {
  if (isTraderSort(q.sort)) {
    const column = sql.ref(`t.${COLUMN[q.sort]}`);
    const { rows } = await sql<{ wallet: string; realized: string; unrealized: string; pnl: string; volume: string; trades: number; drawdown: string; risk_adj: string; name: string | null }>`
      SELECT t.wallet, t.realized, t.unrealized, t.pnl, t.volume, t.trades, t.drawdown, t.risk_adj, a.name
      FROM leaderboard_totals t LEFT JOIN agents a ON a.wallet_address = t.wallet
      WHERE t.category = ${q.category} AND t.period = ${q.period} ${q.sort === 'VOLUME' ? sql`AND t.volume > 0` : sql``}
      ORDER BY ${column} DESC, t.wallet ASC
      LIMIT ${MAX_RANK}`.execute(db);
    return rows.map((r, i) => ({
      rank: i + 1,
      walletAddress: getAddress(r.wallet),
      agentName: r.name,
      value: q.sort === 'PNL' ? r.pnl : q.sort === 'VOLUME' ? r.volume : ratioString(BigInt(r.risk_adj)),
      kind: 'trader',
      trader: { pnl: r.pnl, realizedPnl: r.realized, unrealizedPnl: r.unrealized, volume: r.volume, trades: r.trades, maxDrawdown: r.drawdown, riskAdjustedPnl: ratioString(BigInt(r.risk_adj)) },
    }));
  }
  const role = q.sort === 'CREATOR_QUALITY' ? 'creator' : 'voter';
  const { rows } = await sql<{ wallet: string; value: string; stats: Record<string, unknown>; name: string | null }>`
    SELECT r.wallet, r.value, r.stats, a.name
    FROM leaderboard_roles r LEFT JOIN agents a ON a.wallet_address = r.wallet
    WHERE r.role = ${role} AND r.period = ${q.period}
    ORDER BY r.value DESC, r.wallet ASC
    LIMIT ${MAX_RANK}`.execute(db);
  return rows.map((r, i): LeaderboardEntry => {
    const base = { rank: i + 1, walletAddress: getAddress(r.wallet), agentName: r.name, value: r.value };
    const s = r.stats;
    return role === 'creator'
      ? { ...base, kind: 'creator', creator: { points: r.value, marketsCreated: Number(s.marketsCreated), resolvedClean: Number(s.resolvedClean), disputesLost: Number(s.disputesLost), volumeAttracted: String(s.volumeAttracted) } }
      : { ...base, kind: 'voter', voter: { points: r.value, ballotsCast: Number(s.ballotsCast), agreed: Number(s.agreed), disagreed: Number(s.disagreed) } };
  });
}
