// The order bench's cost model: an order's cost told from a round's, from runs of different batch sizes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitCostModel } from '../../bench/cost-model.ts';

describe('fitCostModel', () => {
  it('recovers the costs that made the runs, whatever the runs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.array(fc.record({ rounds: fc.integer({ min: 1, max: 5_000 }), perRound: fc.integer({ min: 1, max: 60 }) }), { minLength: 2, maxLength: 6 }),
        (perOrderUs, perRoundUs, runs) => {
          fc.pre(new Set(runs.map((r) => r.perRound)).size > 1);
          const points = runs.map(({ rounds, perRound }) => ({ orders: rounds * perRound, rounds, us: perOrderUs * rounds * perRound + perRoundUs * rounds }));
          const fit = fitCostModel(points)!;
          expect(fit.perOrderUs).toBeCloseTo(perOrderUs, 3);
          expect(fit.perRoundUs).toBeCloseTo(perRoundUs, 3);
        },
      ),
    );
  });

  it('answers null when the runs cannot tell the two apart', () => {
    expect(fitCostModel([])).toBeNull();
    expect(fitCostModel([{ orders: 110, rounds: 10, us: 99_000 }])).toBeNull();
    // The same orders a round in both: any split of the cost fits.
    expect(fitCostModel([{ orders: 110, rounds: 10, us: 99_000 }, { orders: 220, rounds: 20, us: 198_000 }])).toBeNull();
  });

  it('fits the session 25 sweep: ~500 µs an order and ~3.3 ms a round of the service', () => {
    // One market on PostgreSQL: orders, transactions and the service's CPU at 4, 16 and 32 connections.
    const fit = fitCostModel([
      { orders: 2539, rounds: 909, us: 2539 * 2022 },
      { orders: 5465, rounds: 461, us: 5465 * 780 },
      { orders: 7329, rounds: 267, us: 7329 * 624 },
    ])!;
    expect(fit.perOrderUs).toBeGreaterThan(400);
    expect(fit.perOrderUs).toBeLessThan(600);
    expect(fit.perRoundUs).toBeGreaterThan(2_500);
    expect(fit.perRoundUs).toBeLessThan(4_500);
  });
});
