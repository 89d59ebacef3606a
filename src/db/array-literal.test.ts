import { describe, expect, it } from 'vitest';
import { arrayLiteral, isTextArray } from './array-literal.ts';

describe('array literals', () => {
  it('quotes every element, escapes quotes and backslashes, writes NULL, nests, and takes a separator', () => {
    expect(arrayLiteral(['a', 'b "c"', 'back\\slash', '', 'NULL', null, undefined])).toBe('{"a","b \\"c\\"","back\\\\slash","","NULL",NULL,NULL}');
    expect(arrayLiteral([])).toBe('{}');
    expect(arrayLiteral([[1, 2], [3, null]], (v) => `n${String(v)}`)).toBe('{{"n1","n2"},{"n3",NULL}}');
    expect(arrayLiteral(['(1,1),(0,0)', '(2,2),(1,1)'], undefined, ';')).toBe('{"(1,1),(0,0)";"(2,2),(1,1)"}');
  });

  it('knows a flat array of texts and nulls from anything else', () => {
    expect(isTextArray(['a', null])).toBe(true);
    expect(isTextArray([])).toBe(true);
    expect(isTextArray(['a', 1])).toBe(false);
    expect(isTextArray([['a']])).toBe(false);
    expect(isTextArray('a')).toBe(false);
  });
});
