/**
 * The 7d and 30d windows move at 00:00 UTC (docs/leaderboard.md "Periods"): the wallets with a day that has just
 * left a window get their windowed totals rebuilt. Which day the windows were last moved to is kept in kv_settings,
 * written with the last batch, so a crash redoes the move (rebuilding is idempotent) and a service stopped for days
 * moves them over every day it missed.
 */
import { sql } from 'kysely';
import { epochDay } from '../../core/leaderboard/boards.ts';
import type { LeaderboardDeps } from './deps.ts';
import { preferIndexes } from './plan.ts';
import { refreshTotals } from './totals.ts';

export const WINDOWS_DAY_SETTING = 'leaderboard:windows_day';

/** Moves the windows to today; answers how many wallets were rebuilt. */
export async function rollWindows(deps: LeaderboardDeps, batch: number): Promise<number> {
  const today = epochDay(deps.clock.now());
  const row = await deps.db.selectFrom('kv_settings').select('value').where('key', '=', WINDOWS_DAY_SETTING).executeTakeFirst();
  const since = typeof row?.value === 'number' ? row.value : null;
  if (since !== null && since >= today) return 0;
  const wallets =
    since === null
      ? []
      : (
          await sql<{ wallet: string }>`
            SELECT DISTINCT wallet FROM leaderboard_days
            WHERE day BETWEEN ${since - 6} AND ${today - 7} OR day BETWEEN ${since - 29} AND ${today - 30}
            ORDER BY wallet`.execute(deps.db)
        ).rows.map((r) => r.wallet);
  for (let i = 0; i === 0 || i < wallets.length; i += batch) {
    await deps.db.transaction().execute(async (trx) => {
      await preferIndexes(trx);
      await refreshTotals(trx, today, wallets.slice(i, i + batch));
      if (i + batch >= wallets.length) {
        await trx
          .insertInto('kv_settings')
          .values({ key: WINDOWS_DAY_SETTING, value: JSON.stringify(today), updated_at: deps.clock.now() })
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(today), updated_at: deps.clock.now() }))
          .execute();
      }
    });
  }
  return wallets.length;
}
