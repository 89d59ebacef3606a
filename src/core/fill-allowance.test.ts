import { describe, expect, it } from 'vitest';
import { fillAllowance, fillMonth, nextMonthStart } from './fill-allowance.ts';

const base = { enabled: true, freePerMonth: 500, freeUsedThisMonth: 0, paidRemaining: 0, packs: [], now: new Date('2026-11-21T10:00:00Z') };

describe('fill allowance', () => {
  it('remaining = freeRemaining + paidRemaining, never below zero', () => {
    expect(fillAllowance({ ...base, freeUsedThisMonth: 120, paidRemaining: 1000 })).toMatchObject({
      freeUsed: 120,
      freeRemaining: 380,
      paidRemaining: 1000,
      remaining: 1380,
    });
    expect(fillAllowance({ ...base, freeUsedThisMonth: 500 })).toMatchObject({ freeRemaining: 0, remaining: 0 });
    expect(fillAllowance({ ...base, freeUsedThisMonth: 900 })).toMatchObject({ freeUsed: 500, freeRemaining: 0, remaining: 0 });
  });

  it('resets on the first moment of the next UTC month, including across a year end', () => {
    expect(fillAllowance(base).resetsOn).toBe('2026-12-01T00:00:00.000Z');
    expect(nextMonthStart(new Date('2026-12-31T23:59:59.999Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    // 23:30 on Nov 30 at UTC-05:00 is already December in UTC.
    expect(fillMonth(new Date('2026-11-30T23:30:00-05:00'))).toBe('2026-12');
    expect(fillMonth(new Date('2026-01-01T00:00:00Z'))).toBe('2026-01');
  });

  it('lists packs cheapest first', () => {
    const packs = fillAllowance({ ...base, packs: [{ fills: 5000, usdCents: 2000 }, { fills: 1000, usdCents: 500 }] }).packs;
    expect(packs.map((p) => p.usdCents)).toEqual([500, 2000]);
  });

  it('counts nothing when disabled', () => {
    expect(fillAllowance({ ...base, enabled: false, freeUsedThisMonth: 300 })).toMatchObject({ enabled: false, freeUsed: 0, freeRemaining: 500, remaining: 500 });
  });
});
