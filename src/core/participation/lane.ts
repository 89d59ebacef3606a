/**
 * The participation lane of a member (docs/participation.md "Lane"), pure: from the UTC days on which the member
 * traded enough (qualifying days) to the lane's state and the days that earn a credit. A qualifying trade on day D is
 * seen that day (activation_pending until the lane first activates), activates the lane from D+1 and keeps it active
 * through D+activeDays; each whole UTC day on which the lane was active earns one daily credit, booked by the
 * crediting pass after the day ends.
 */
export type LaneState = 'unavailable' | 'not_activated' | 'activation_pending' | 'active' | 'dormant';

export const DAY_MS = 86_400_000;

export interface LaneView {
  state: Exclude<LaneState, 'unavailable'>;
  firstActivatedAt: Date | null;
  activeUntil: Date | null;
  lastQualifyingTradeAt: Date | null;
  nextCreditAt: Date | null;
}

/** Epoch day number of an instant (UTC). */
export const dayOf = (at: Date): number => Math.floor(at.getTime() / DAY_MS);
const startOf = (day: number): Date => new Date(day * DAY_MS);

/**
 * The lane now. `qualifyingDays` are epoch days (any order, duplicates allowed); `lastQualifyingTradeAt` the time of
 * the latest qualifying trade.
 */
export function laneOf(qualifyingDays: readonly number[], lastQualifyingTradeAt: Date | null, now: Date, activeDays: number): LaneView {
  if (qualifyingDays.length === 0) return { state: 'not_activated', firstActivatedAt: null, activeUntil: null, lastQualifyingTradeAt: null, nextCreditAt: null };
  const today = dayOf(now);
  const first = Math.min(...qualifyingDays);
  const last = Math.max(...qualifyingDays);
  const activeUntil = startOf(last + 1 + activeDays);
  if (first + 1 > today) {
    return { state: 'activation_pending', firstActivatedAt: null, activeUntil, lastQualifyingTradeAt, nextCreditAt: startOf(first + 2) };
  }
  const active = now.getTime() < activeUntil.getTime();
  return {
    state: active ? 'active' : 'dormant',
    firstActivatedAt: startOf(first + 1),
    activeUntil,
    lastQualifyingTradeAt,
    // Today's credit is booked once today ends.
    nextCreditAt: active ? startOf(today + 1) : null,
  };
}

/** Whether the lane was active on the whole of `day`: some qualifying day q with q + 1 ≤ day ≤ q + activeDays. */
export function activeOn(qualifyingDays: readonly number[], day: number, activeDays: number): boolean {
  return qualifyingDays.some((q) => q + 1 <= day && day <= q + activeDays);
}
