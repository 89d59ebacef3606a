/**
 * The expiry pass of the 24-hour volumes (docs/markets.md "24-hour volume"; migration 0031): moves the aggregate's
 * boundary to now − 24 h and takes the trades it passed off their markets' volumes, in one transaction under the window
 * row's lock (a trade written meanwhile waits, then is counted against the new boundary). Reads are exact at any time
 * whatever the boundary (listing.ts volumesAt); the pass only keeps the part they correct small. Run by the leader.
 */
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { DB } from '../../db/schema.ts';
import { keeperLoop, type KeeperLoop } from '../keeper-loop.ts';

const DAY_MS = 86_400_000;
/** How often the leader moves the boundary. */
export const VOLUME_WINDOW_INTERVAL_MS = 10_000;

/** Moves the boundary to `now` − 24 h (never back); answers how many markets' volumes changed. */
export async function advanceVolumeWindow(db: Kysely<DB>, now: Date): Promise<number> {
  const cut = new Date(now.getTime() - DAY_MS);
  return db.transaction().execute(async (trx) => {
    const window = await trx.selectFrom('market_volume_window').select('since').where('id', '=', 1).forUpdate().executeTakeFirstOrThrow();
    if (cut.getTime() <= new Date(window.since).getTime()) return 0;
    const changed = await sql`
      UPDATE market_volumes v SET volume = v.volume - x.d
        FROM (SELECT chain_id, market, sum(cost) AS d FROM market_trade_events
               WHERE at > ${window.since} AND at <= ${cut.toISOString()}::timestamptz GROUP BY chain_id, market) x
       WHERE v.chain_id = x.chain_id AND v.market = x.market`.execute(trx);
    await trx.deleteFrom('market_volumes').where('volume', '=', '0').execute();
    await trx.updateTable('market_volume_window').set({ since: cut }).where('id', '=', 1).execute();
    return Number(changed.numAffectedRows ?? 0n);
  });
}

/** The leader's loop of the pass. */
export function createVolumeWindowKeeper(deps: { db: Kysely<DB>; clock: Clock; log: Logger; intervalMs?: number }): KeeperLoop {
  return keeperLoop({ name: 'volume window', pass: () => advanceVolumeWindow(deps.db, deps.clock.now()), log: deps.log, intervalMs: deps.intervalMs ?? VOLUME_WINDOW_INTERVAL_MS });
}
