import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { asJsonb } from './jsonb.ts';
import { replayable } from '../../test/support/property.ts';

/** jsonb's key order (shorter first, then by UTF-8 bytes), applied to what JSON keeps: the definition asJsonb follows. */
const byJsonbOrder = (a: string, b: string) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b));
function reference(value: unknown): unknown {
  const order = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(order);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => byJsonbOrder(a, b)).map(([k, x]) => [k, order(x)]));
  };
  const text = JSON.stringify(value);
  return text === undefined ? null : order(JSON.parse(text));
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe('asJsonb', () => {
  it('is JSON.parse(JSON.stringify(value)) with jsonb key order, for every kind of value an event carries', () => {
    const leaf = fc.oneof(
      fc.string(),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.constant(-0),
      fc.constant(Number.NaN),
      fc.date({ noInvalidDate: true }),
      fc.constant(new Map([['a', 1]])),
      fc.constant(new Point(1, 2)),
      fc.constant(Object(3) as unknown),
      fc.constant(Object('boxed') as unknown),
      fc.constant({ toJSON: (key: string) => ({ key, nested: new Date(0) }) }),
      // JSON calls one toJSON per value: a Date answered by a toJSON is written as an object, not its ISO text.
      fc.constant({ toJSON: () => new Date(0) }),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('0', '10', 'é', 'ab', 'B', '~')), tie('node'), { maxKeys: 5 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        // The same values (NaN and -0 are not null and 0 to toEqual), in the same key order.
        expect(asJsonb(v)).toEqual(reference(v));
        expect(JSON.stringify(asJsonb(v))).toBe(JSON.stringify(reference(v)));
      }),
      replayable({ numRuns: 500 }),
    );
  });

  it('throws for a bigint as JSON.stringify does, and answers null for what JSON leaves out', () => {
    expect(() => asJsonb({ a: 1n })).toThrow(TypeError);
    expect(asJsonb(undefined)).toBeNull();
    expect(asJsonb(() => 1)).toBeNull();
  });
});
