/**
 * What a leaderboard is (docs/leaderboard.md): its sorts, periods and UTC-day windows, and the unit of each sort's
 * value. Days are whole UTC days counted from 1970-01-01 (an "epoch day"), so windows are integer ranges.
 */

export const LEADERBOARD_SORTS = ['PNL', 'VOLUME', 'RISK_ADJ_PNL', 'CREATOR_QUALITY', 'VOTERS'] as const;
export type LeaderboardSort = (typeof LEADERBOARD_SORTS)[number];

export const LEADERBOARD_PERIODS = ['7d', '30d', 'all'] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];

/** The sorts that rank traders; only these take a category. */
export const TRADER_SORTS = ['PNL', 'VOLUME', 'RISK_ADJ_PNL'] as const;
export type TraderSort = (typeof TRADER_SORTS)[number];
export const isTraderSort = (sort: LeaderboardSort): sort is TraderSort => (TRADER_SORTS as readonly string[]).includes(sort);

/** Every category of every market together. */
export const ALL_CATEGORIES = 'ALL';

/**
 * The unit of a sort's `value`: usd_micro — dollars with 6 decimals (1 000 000 = $1), signed; ratio — a decimal
 * with up to 6 places; points — a whole number of points (docs/leaderboard.md "Values").
 */
export type ValueUnit = 'usd_micro' | 'ratio' | 'points';
export const VALUE_UNITS: Record<LeaderboardSort, ValueUnit> = {
  PNL: 'usd_micro',
  VOLUME: 'usd_micro',
  RISK_ADJ_PNL: 'ratio',
  CREATOR_QUALITY: 'points',
  VOTERS: 'points',
};

/** The deepest rank a board answers: offset ≤ 200 plus limit ≤ 100 (spec Limits). */
export const MAX_RANK = 300;

const DAY_MS = 86_400_000;

/** The UTC day of a moment, as days since 1970-01-01. */
export const epochDay = (at: Date): number => Math.floor(at.getTime() / DAY_MS);

/** An epoch day as its ISO date, YYYY-MM-DD. */
export const isoDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The days a period counts: today and the 6 (7d) or 29 (30d) before it; null for all time. */
export function windowOf(period: LeaderboardPeriod, today: number): { from: number; to: number } | null {
  if (period === 'all') return null;
  return { from: today - (period === '7d' ? 6 : 29), to: today };
}

/** The longest window, in days: a wallet's windowed totals never read more day rows than this. */
export const LONGEST_WINDOW_DAYS = 30;
