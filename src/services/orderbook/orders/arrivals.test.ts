// Placements on their way to a queue (arrivals.ts): counted from their arrival until they say they got there, once.
import { describe, expect, it } from 'vitest';
import { Arrivals } from './arrivals.ts';

describe('arrivals', () => {
  it('counts each placement on its way once, however often it says it got there', () => {
    const arrivals = new Arrivals();
    const a = arrivals.begin();
    const b = arrivals.begin();
    expect(arrivals.pending).toBe(2);
    a();
    a();
    expect(arrivals.pending).toBe(1);
    b();
    expect(arrivals.pending).toBe(0);
    b();
    expect(arrivals.pending).toBe(0);
  });
});
