/**
 * The embedded human check: a hashcash-style proof of work (in the manner of ALTCHA). The server
 * hands out a single-use salt; the client finds a decimal `solution` such that
 * SHA-256(`{salt}:{solution}`) starts with `bits` zero bits, and sends the token
 * `pow1:{salt}:{solution}`. Finding it costs about 2^bits hashes; checking it costs one.
 */
import { createHash } from 'node:crypto';

export const POW_TOKEN_PREFIX = 'pow1';

/** Number of leading zero bits of a digest. */
export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

export const powDigest = (salt: string, solution: string): Buffer => createHash('sha256').update(`${salt}:${solution}`, 'utf8').digest();

export const powSatisfied = (salt: string, solution: string, bits: number): boolean => leadingZeroBits(powDigest(salt, solution)) >= bits;

/** Brute-forces a solution (clients, tests, the docs' example). Expected work: 2^bits hashes. */
export function solvePow(salt: string, bits: number): string {
  for (let n = 0; ; n++) {
    const candidate = String(n);
    if (powSatisfied(salt, candidate, bits)) return candidate;
  }
}

export const powToken = (salt: string, solution: string): string => `${POW_TOKEN_PREFIX}:${salt}:${solution}`;

export function parsePowToken(token: string): { salt: string; solution: string } | null {
  const m = /^pow1:([0-9a-f]{32}):([0-9]{1,20})$/.exec(token);
  return m ? { salt: m[1]!, solution: m[2]! } : null;
}
