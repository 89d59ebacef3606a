import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayable } from '../../../test/support/property.ts';
import { curveOf, drawdownOf, DRAWDOWN_FLOOR, EMPTY_CURVE, foldDay, maxDrawdown, ratioString, riskAdjusted } from './curve.ts';

const $ = (dollars: number) => BigInt(Math.round(dollars * 1_000_000));

describe('the daily equity curve', () => {
  it('RISK_ADJ_PNL of a hand-computed curve: +$300, −$500, +$400, +$100 is P&L $300 over a $500 drawdown, 0.6', () => {
    // Points 0 → 300 → −200 → 200 → 300: the peak is 300 (day 1), the trough −200 (day 2): drawdown $500.
    const deltas = [$(300), $(-500), $(400), $(100)];
    expect(maxDrawdown(deltas)).toBe($(500));
    const curve = curveOf(deltas.map((realized, i) => ({ day: 20_000 + i, realized })));
    expect(curve.cum).toBe($(300));
    expect(drawdownOf(curve)).toBe($(500));
    expect(ratioString(riskAdjusted(curve.cum, drawdownOf(curve)))).toBe('0.6');
  });

  it('divides by the $100 floor when the curve never fell below it', () => {
    expect(riskAdjusted($(250), 0n)).toBe(2_500_000n);
    expect(ratioString(riskAdjusted($(250), $(20)))).toBe('2.5');
    expect(riskAdjusted($(-1), DRAWDOWN_FLOOR)).toBe(-10_000n);
    expect(ratioString(-10_000n)).toBe('-0.01');
    expect(ratioString(-1n)).toBe('-0.000001');
    expect(ratioString(0n)).toBe('0');
  });

  it('a fall from the start counts: the curve starts at 0', () => {
    expect(maxDrawdown([$(-40), $(10)])).toBe($(40));
    expect(drawdownOf(curveOf([{ day: 1, realized: $(-40) }, { day: 2, realized: $(10) }]))).toBe($(40));
  });

  it('folding days one at a time (several deltas a day) gives the reference drawdown of the daily points', () => {
    const steps = fc.array(fc.record({ gap: fc.integer({ min: 0, max: 3 }), delta: fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }) }), { maxLength: 60 });
    fc.assert(
      fc.property(steps, (xs) => {
        let day = 100;
        let state = EMPTY_CURVE;
        const perDay = new Map<number, bigint>();
        for (const { gap, delta } of xs) {
          day += gap;
          state = foldDay(state, day, delta)!;
          perDay.set(day, (perDay.get(day) ?? 0n) + delta);
        }
        const daily = [...perDay.entries()].sort(([a], [b]) => a - b).map(([, d]) => d);
        expect(drawdownOf(state)).toBe(maxDrawdown(daily));
        expect(state.cum).toBe(daily.reduce((a, b) => a + b, 0n));
      }),
      replayable({ numRuns: 300 }),
    );
  });

  it('refuses a day before the last one (the caller rebuilds from the day rows)', () => {
    const s = foldDay(foldDay(EMPTY_CURVE, 10, 5n)!, 12, 5n)!;
    expect(foldDay(s, 11, 1n)).toBeNull();
  });
});
