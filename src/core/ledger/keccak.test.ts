import { keccak_256 } from '@noble/hashes/sha3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KECCAK_SINGLE_BLOCK_MAX, keccak256SingleBlock } from './keccak.ts';
import { replayable } from '../../../test/support/property.ts';

const hashOf = (bytes: Uint8Array): Uint8Array => {
  const out = new Uint8Array(32);
  keccak256SingleBlock(bytes, 0, bytes.length, out, 0);
  return out;
};

describe('single-block keccak256', () => {
  it('equals keccak_256 for every length 0..135 and random contents', () => {
    for (let len = 0; len <= KECCAK_SINGLE_BLOCK_MAX; len++) {
      const bytes = Uint8Array.from({ length: len }, (_, i) => (i * 131 + len * 7) & 0xff);
      expect(hashOf(bytes)).toEqual(keccak_256(bytes));
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: KECCAK_SINGLE_BLOCK_MAX }), (bytes) => {
        expect(hashOf(bytes)).toEqual(keccak_256(bytes));
      }),
      replayable({ numRuns: 500 }),
    );
  });

  it('hashes a window of a larger buffer and may write over its own input', () => {
    const buf = Uint8Array.from({ length: 100 }, (_, i) => i);
    const expected = keccak_256(buf.subarray(10, 74));
    keccak256SingleBlock(buf, 10, 64, buf, 10);
    expect(buf.subarray(10, 42)).toEqual(expected);
  });

  it('refuses a message longer than one block', () => {
    expect(() => keccak256SingleBlock(new Uint8Array(136), 0, 136, new Uint8Array(32), 0)).toThrow(RangeError);
  });
});
