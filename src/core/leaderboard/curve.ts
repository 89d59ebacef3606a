/**
 * The daily equity curve of realized P&L and its maximum drawdown (docs/leaderboard.md "RISK_ADJ_PNL"). The curve
 * starts at 0 and steps once per day that realized something; the drawdown is the largest fall from a running peak,
 * the start included. Amounts are USD micro-dollars; the risk-adjusted ratio is scaled by 10^6.
 */

/** The floor of the denominator of RISK_ADJ_PNL: $100 in USD micro-dollars, so a curve that never fell is not divided by ~0. */
export const DRAWDOWN_FLOOR = 100_000_000n;
export const RATIO_SCALE = 1_000_000n;

/** The maximum drawdown of the curve whose daily steps are `deltas` (in day order), starting from 0. The reference. */
export function maxDrawdown(deltas: readonly bigint[]): bigint {
  let cum = 0n;
  let peak = 0n;
  let worst = 0n;
  for (const d of deltas) {
    cum += d;
    if (cum > peak) peak = cum;
    if (peak - cum > worst) worst = peak - cum;
  }
  return worst;
}

/**
 * The running state of an all-time curve, folded one day at a time without its history: `cum` is the last point,
 * `closedPeak` / `closedDrawdown` the peak and drawdown of the points before the last day.
 */
export interface CurveState {
  lastDay: number | null;
  cum: bigint;
  closedPeak: bigint;
  closedDrawdown: bigint;
}

export const EMPTY_CURVE: CurveState = { lastDay: null, cum: 0n, closedPeak: 0n, closedDrawdown: 0n };

/** The state after `delta` realized on `day`; null when `day` is before the last day folded (refold from the days). */
export function foldDay(state: CurveState, day: number, delta: bigint): CurveState | null {
  if (state.lastDay === null) return { lastDay: day, cum: delta, closedPeak: 0n, closedDrawdown: 0n };
  if (day < state.lastDay) return null;
  if (day === state.lastDay) return { ...state, cum: state.cum + delta };
  return { lastDay: day, cum: state.cum + delta, closedPeak: max(state.closedPeak, state.cum), closedDrawdown: drawdownOf(state) };
}

/** The maximum drawdown of the curve a state describes. */
export const drawdownOf = (s: CurveState): bigint => max(s.closedDrawdown, s.closedPeak - s.cum, 0n);

/** The state of a curve from its days (ascending, one entry per day). */
export const curveOf = (days: readonly { day: number; realized: bigint }[]): CurveState => days.reduce<CurveState>((s, d) => foldDay(s, d.day, d.realized) ?? s, EMPTY_CURVE);

/** RISK_ADJ_PNL: pnl ÷ max(drawdown, DRAWDOWN_FLOOR), scaled by RATIO_SCALE and truncated toward zero. */
export const riskAdjusted = (pnl: bigint, drawdown: bigint): bigint => (pnl * RATIO_SCALE) / max(drawdown, DRAWDOWN_FLOOR);

/** A ratio scaled by RATIO_SCALE as a decimal string: "1.5", "-0.000001", "2". */
export function ratioString(scaled: bigint): string {
  const negative = scaled < 0n;
  const abs = negative ? -scaled : scaled;
  const whole = abs / RATIO_SCALE;
  const frac = (abs % RATIO_SCALE).toString().padStart(6, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

function max(...xs: bigint[]): bigint {
  return xs.reduce((a, b) => (b > a ? b : a));
}
