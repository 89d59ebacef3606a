import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayable } from '../../test/support/property.ts';
import { arrayLiteral, isTextArray } from './array-literal.ts';

/** The literal as it was first written: every element's quotes and backslashes escaped by a replacement. */
const byReplacement = (values: readonly (string | null)[]): string => `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;

describe('array literals', () => {
  it('quotes every element, escapes quotes and backslashes, writes NULL, nests, and takes a separator', () => {
    expect(arrayLiteral(['a', 'b "c"', 'back\\slash', '', 'NULL', null, undefined])).toBe('{"a","b \\"c\\"","back\\\\slash","","NULL",NULL,NULL}');
    expect(arrayLiteral([])).toBe('{}');
    expect(arrayLiteral([[1, 2], [3, null]], (v) => `n${String(v)}`)).toBe('{{"n1","n2"},{"n3",NULL}}');
    expect(arrayLiteral(['(1,1),(0,0)', '(2,2),(1,1)'], undefined, ';')).toBe('{"(1,1),(0,0)";"(2,2),(1,1)"}');
  });

  it('writes what the replacement wrote for any text: control characters, lone surrogates, quotes, JSON texts', () => {
    expect(arrayLiteral(['{"a":"b\\"c"}', 'tab\there', 'lone \ud800', '🎲'])).toBe(byReplacement(['{"a":"b\\"c"}', 'tab\there', 'lone \ud800', '🎲']));
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('"', '\\', ',', '{', '}', 'a', '\n', '\u0000', '\u007f', '\u2028', '\udc00') }), fc.json());
    fc.assert(
      fc.property(fc.array(fc.option(text, { nil: null }), { maxLength: 8 }), (values) => {
        expect(arrayLiteral(values)).toBe(byReplacement(values));
      }),
      replayable({ numRuns: 2_000 }),
    );
  });

  it('knows a flat array of texts and nulls from anything else', () => {
    expect(isTextArray(['a', null])).toBe(true);
    expect(isTextArray([])).toBe(true);
    expect(isTextArray(['a', 1])).toBe(false);
    expect(isTextArray([['a']])).toBe(false);
    expect(isTextArray('a')).toBe(false);
  });
});
