/**
 * What an order costs and what a round costs, told apart (docs/orderbook.md, session 25): runs of one stream with
 * different numbers of connections hold different numbers of orders a round, so their CPU time is fitted as
 * `cost = perOrder · orders + perRound · rounds` by least squares (no constant: an idle service costs next to nothing).
 * A round is a placement transaction (group commit).
 */

export interface CostPoint {
  orders: number;
  rounds: number;
  /** CPU time (µs) the run used. */
  us: number;
}

export interface CostModel {
  perOrderUs: number;
  perRoundUs: number;
}

/** The least-squares fit; null with fewer than two runs or runs of one shape (their orders a round all equal). */
export function fitCostModel(points: readonly CostPoint[]): CostModel | null {
  if (points.length < 2) return null;
  let [oo, ot, tt, oc, tc] = [0, 0, 0, 0, 0];
  for (const { orders: o, rounds: t, us: c } of points) {
    oo += o * o;
    ot += o * t;
    tt += t * t;
    oc += o * c;
    tc += t * c;
  }
  const det = oo * tt - ot * ot;
  // Proportional runs (the same orders a round) cannot tell an order's cost from a round's.
  if (Math.abs(det) <= 1e-9 * oo * tt) return null;
  return { perOrderUs: (oc * tt - tc * ot) / det, perRoundUs: (tc * oo - oc * ot) / det };
}
