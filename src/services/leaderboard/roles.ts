/**
 * The creator and voter boards (docs/leaderboard.md "CREATOR_QUALITY", "VOTERS"), rebuilt in one transaction from
 * their inputs when those change: the markets and their resolutions as the indexer projected them, the volume each
 * creator's markets drew (leaderboard_creator_days, kept by the fold), the published ballots and the frozen tallies.
 * These grow with markets and ballots, not with trades; requests read the rows by index.
 */
import { sql } from 'kysely';
import { epochDay, windowOf, LEADERBOARD_PERIODS, type LeaderboardPeriod } from '../../core/leaderboard/boards.ts';
import { creatorPoints, voterPoints, type CreatorStats, type VoterStats } from '../../core/leaderboard/scores.ts';
import type { LeaderboardDeps } from './deps.ts';

/** What the role boards are built from changed when this changes (or the day does). */
export async function rolesFingerprint(deps: Pick<LeaderboardDeps, 'db' | 'clock'>): Promise<string> {
  const { rows } = await sql<Record<string, unknown>>`
    SELECT (SELECT count(*) FROM vote_ballots) AS ballots,
      (SELECT count(*) FROM vote_tallies) AS tallies,
      (SELECT count(*) FROM markets) AS markets,
      (SELECT count(*) FROM markets WHERE cancel_reason IS NOT NULL) AS cancelled,
      (SELECT max(updated_at) FROM market_resolutions) AS resolutions`.execute(deps.db);
  return JSON.stringify({ day: epochDay(deps.clock.now()), ...rows[0] });
}

interface CreatorFact {
  creator: string;
  created_at: Date;
  counted: boolean;
  finalized_at: string | null;
  slashed: boolean | null;
}

interface BallotFact {
  wallet: string;
  cast_at: Date;
  outcome: number;
  verdict: string | null;
  verdict_outcome: number | null;
}

/** Rebuilds every creator and voter row; answers how many rows. */
export async function rebuildRoles(deps: LeaderboardDeps): Promise<number> {
  const today = epochDay(deps.clock.now());
  const { rows: markets } = await sql<CreatorFact>`
    SELECT lower(m.creator) AS creator, m.created_at, (m.question IS NOT NULL AND m.cancel_reason IS NULL) AS counted,
      CASE WHEN r.phase = 'resolved' THEN r.record->>'finalizedAt' END AS finalized_at,
      CASE WHEN r.phase = 'resolved' THEN (r.record->>'creatorSlashed')::boolean END AS slashed
    FROM markets m LEFT JOIN market_resolutions r ON r.chain_id = m.chain_id AND r.market = m.address`.execute(deps.db);
  const creatorDays = await deps.db.selectFrom('leaderboard_creator_days').select(['creator', 'day', 'volume']).execute();
  const { rows: ballots } = await sql<BallotFact>`
    SELECT b.wallet_address AS wallet, b.cast_at, b.outcome, t.verdict, t.outcome AS verdict_outcome
    FROM vote_ballots b LEFT JOIN vote_tallies t ON t.chain_id = b.chain_id AND t.market = b.market AND t.round = b.round`.execute(deps.db);

  const rows: { role: 'creator' | 'voter'; period: LeaderboardPeriod; wallet: string; value: string; stats: string }[] = [];
  for (const period of LEADERBOARD_PERIODS) {
    const w = windowOf(period, today);
    const inWindow = (day: number) => w === null || day >= w.from;
    const creators = new Map<string, CreatorStats>();
    const creator = (wallet: string) => creators.get(wallet) ?? creators.set(wallet, { marketsCreated: 0, resolvedClean: 0, disputesLost: 0, volumeAttracted: 0n }).get(wallet)!;
    for (const m of markets) {
      if (m.counted && inWindow(epochDay(m.created_at))) creator(m.creator).marketsCreated++;
      if (m.finalized_at !== null && inWindow(epochDay(new Date(m.finalized_at)))) {
        if (m.slashed) creator(m.creator).disputesLost++;
        else creator(m.creator).resolvedClean++;
      }
    }
    for (const d of creatorDays) if (inWindow(d.day) && BigInt(d.volume) !== 0n) creator(d.creator).volumeAttracted += BigInt(d.volume);
    for (const [wallet, s] of creators) {
      rows.push({ role: 'creator', period, wallet, value: creatorPoints(s).toString(), stats: JSON.stringify({ ...s, volumeAttracted: s.volumeAttracted.toString() }) });
    }
    const voters = new Map<string, VoterStats>();
    for (const b of ballots) {
      if (!inWindow(epochDay(b.cast_at))) continue;
      const s = voters.get(b.wallet) ?? { ballotsCast: 0, agreed: 0, disagreed: 0 };
      s.ballotsCast++;
      if (b.verdict === 'binding') {
        if (b.verdict_outcome === b.outcome) s.agreed++;
        else s.disagreed++;
      }
      voters.set(b.wallet, s);
    }
    for (const [wallet, s] of voters) rows.push({ role: 'voter', period, wallet, value: voterPoints(s).toString(), stats: JSON.stringify(s) });
  }
  rows.sort((a, b) => (a.role + a.period + a.wallet < b.role + b.period + b.wallet ? -1 : 1));
  await deps.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('leaderboard_roles').execute();
    for (let i = 0; i < rows.length; i += 5_000) await trx.insertInto('leaderboard_roles').values(rows.slice(i, i + 5_000)).execute();
  });
  return rows.length;
}
