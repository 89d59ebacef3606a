import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalHash, canonicalJson } from './canonical-json.ts';
import { replayable } from '../../test/support/property.ts';

describe('canonical JSON', () => {
  it('sorts keys recursively and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined, x: null }], c: 'é' } })).toBe(
      '{"a":{"c":"é","d":[3,{"x":null,"z":1}]},"b":1}',
    );
    expect(canonicalHash({ b: 1, a: { d: [3, { z: 1, y: undefined, x: null }], c: 'é' } })).toBe('0xcef51fc38a682fc17bc8d21cc58b8b740f028297a4a8dd75745fc15209076abc');
  });

  it('hashes a null or absent payload as the empty object', () => {
    expect(canonicalJson(null)).toBe('{}');
    expect(canonicalJson(undefined)).toBe('{}');
    expect(canonicalHash(null)).toBe(canonicalHash({}));
    // Test vector published in docs/canonical-json.md.
    expect(canonicalHash({})).toBe('0x44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('does not depend on key insertion order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(obj));
      }),
      replayable({ numRuns: 100 }),
    );
  });

  it('round-trips through JSON.parse to an equal value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        if (v === null) return;
        expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      replayable({ numRuns: 100 }),
    );
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ a: () => 1 })).toThrow(TypeError);
  });
});
