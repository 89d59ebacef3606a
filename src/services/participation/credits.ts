/**
 * The crediting pass (docs/participation.md "Credits"): once a UTC day has ended, every member account whose lane was
 * active all that day is credited the daily credit, one row per (account, day) — the key makes a second pass, or a
 * second process, credit nothing twice. A qualifying day is a UTC day on which the account's wallets traded at least
 * PARTICIPATION_QUALIFYING_VOLUME (all markets, both lanes: the leaderboard's day rows). Credits stop when the pool
 * has no daily credit left (units exhausted).
 */
import { sql } from 'kysely';
import { activeOn, dayOf, DAY_MS } from '../../core/participation/lane.ts';
import { participationReleaseId } from '../../chain/participation-distributor.ts';
import type { ParticipationDeps } from './deps.ts';

/** Days back a pass looks for qualifying days (a credit needs one within activeDays before it). */
const LOOKBACK_SLACK_DAYS = 2;

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Qualifying days of each account: wallets grouped under their identity's root as it is now. */
export async function qualifyingDays(deps: ParticipationDeps, fromDay: number, accounts?: readonly string[]): Promise<Map<string, number[]>> {
  const { rows } = await sql<{ account: string; day: number }>`
    SELECT coalesce(root.root_wallet, d.wallet) AS account, d.day
    FROM leaderboard_days d
    LEFT JOIN identity_members m ON m.wallet_address = d.wallet
    LEFT JOIN identities root ON root.id = m.identity_id AND root.dissolved_at IS NULL
    WHERE d.day >= ${fromDay}
    GROUP BY 1, d.day
    HAVING sum(d.volume) >= ${deps.settings.qualifyingVolume.toString()}::numeric`.execute(deps.db);
  const out = new Map<string, number[]>();
  for (const r of rows) {
    if (accounts && !accounts.includes(r.account)) continue;
    const days = out.get(r.account) ?? [];
    days.push(Number(r.day));
    out.set(r.account, days);
  }
  return out;
}

/** Books every credit due up to yesterday; returns how many were booked. */
export async function creditPass(deps: ParticipationDeps): Promise<number> {
  if (!deps.distributor || deps.settings.mode !== 'on') return 0;
  const today = dayOf(deps.clock.now());
  const { activeDays, dailyCreditWei, poolWei } = deps.settings;
  const from = today - activeDays - LOOKBACK_SLACK_DAYS - 30;
  const byAccount = await qualifyingDays(deps, from);
  const releaseId = participationReleaseId(deps.chainId);
  let booked = 0;
  // Every account's last credited day in one read: an account credited up to yesterday costs nothing more.
  const lastRows =
    byAccount.size === 0
      ? []
      : await deps.db
          .selectFrom('participation_credits')
          .select(['member_key', (eb) => eb.fn.max('day').as('day')])
          .where('member_key', 'in', [...byAccount.keys()])
          .groupBy('member_key')
          .execute();
  const lastDays = new Map(lastRows.map((r) => [r.member_key, dayOf(new Date(`${String(r.day)}T00:00:00Z`))]));
  for (const [account, days] of byAccount) {
    const first = Math.max(Math.min(...days) + 1, (lastDays.get(account) ?? -Infinity) + 1, from);
    if (first >= today) continue;
    // The account's wallets: a day one of them was already credited for under its own account (before it joined
    // this identity) is not credited again.
    const wallets = await walletsOfAccount(deps, account);
    for (let day = first; day < today; day++) {
      if (!activeOn(days, day, activeDays)) continue;
      const done = await deps.db.transaction().execute(async (trx) => {
        // One pass books at a time across processes, so the pool is never over-credited.
        await sql`SELECT pg_advisory_xact_lock(hashtext('participation-credits'))`.execute(trx);
        const earlier = await trx.selectFrom('participation_credits').select('member_key').where('day', '=', isoDay(day)).where('member_key', 'in', wallets).executeTakeFirst();
        if (earlier) return 'had' as const;
        const total = await trx.selectFrom('participation_credits').select((eb) => eb.fn.sum<string | null>('amount').as('total')).executeTakeFirst();
        if (BigInt(total?.total ?? 0) + dailyCreditWei > poolWei) return 'exhausted' as const;
        const inserted = await trx
          .insertInto('participation_credits')
          .values({ member_key: account, day: isoDay(day), amount: dailyCreditWei, release_id: releaseId, credited_at: deps.clock.now() })
          .onConflict((oc) => oc.columns(['member_key', 'day']).doNothing())
          .executeTakeFirst();
        return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n ? ('booked' as const) : ('had' as const);
      });
      if (done === 'exhausted') return booked;
      if (done === 'booked') booked++;
    }
  }
  return booked;
}

/** The wallets whose activity counts for an account: its identity's members when it is a root, else itself. */
async function walletsOfAccount(deps: ParticipationDeps, account: string): Promise<string[]> {
  const rows = await deps.db
    .selectFrom('identity_members as m')
    .innerJoin('identities as i', 'i.id', 'm.identity_id')
    .select('m.wallet_address')
    .where('i.root_wallet', '=', account)
    .where('i.dissolved_at', 'is', null)
    .execute();
  return [...new Set([account, ...rows.map((r) => r.wallet_address)])];
}
