import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseUnitsOfShares, bpsOfPrice, priceOfBps, sharesOfBaseUnits } from './units.ts';

describe('order-book wire units', () => {
  it('renders basis points as exact decimal prices and reads them back', () => {
    expect([0, 1, 100, 4000, 5700, 9999, 10_000].map(priceOfBps)).toEqual(['0', '0.0001', '0.01', '0.4', '0.57', '0.9999', '1']);
    fc.assert(fc.property(fc.integer({ min: 0, max: 10_000 }), (bps) => bpsOfPrice(priceOfBps(bps)) === bps));
  });

  it('reads a price written with trailing zeros or a whole 0 or 1, and refuses anything else', () => {
    expect(['0.5700', '0.570000000000000000', '0', '1.0', '0.0001'].map(bpsOfPrice)).toEqual([5700, 5700, 0, 10_000, 1]);
    // Not a whole basis point, out of [0, 1], or not a plain decimal.
    for (const bad of ['0.57001', '0.00005', '1.01', '2', '.5', '0.', '-0.5', '5e-1', '0,5', ' 0.5', '0.5000000000000000001']) expect(bpsOfPrice(bad), bad).toBeNull();
  });

  it('counts shares in base units, one share being 1 000 000, and refuses a fraction of a share', () => {
    expect(baseUnitsOfShares(6n)).toBe(6_000_000n);
    expect(sharesOfBaseUnits(6_000_000n)).toBe(6n);
    expect(sharesOfBaseUnits(0n)).toBe(0n);
    expect(sharesOfBaseUnits(1_500_000n)).toBeNull();
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 1n << 100n }), (n) => sharesOfBaseUnits(baseUnitsOfShares(n)) === n));
  });
});
