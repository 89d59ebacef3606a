/**
 * Bearer secrets (API keys, session tokens, link codes, mailed link tokens) are stored only as
 * their SHA-256. A lookup goes by digest; the final equality is constant-time, so timing says
 * nothing about a secret even where a database index compares bytes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256 of the UTF-8 text: the form a secret is stored in. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** True when `stored` (the digest a lookup found, if any) equals `computed`, compared in constant time. */
export function digestMatches(stored: string | undefined, computed: string): boolean {
  const found = Buffer.from(stored ?? '0'.repeat(64), 'hex');
  const given = Buffer.from(computed, 'hex');
  return stored !== undefined && found.length === given.length && timingSafeEqual(found, given);
}
