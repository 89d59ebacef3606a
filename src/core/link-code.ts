/**
 * Identity link codes: 12 characters of Crockford base32 (60 random bits), shown as
 * `XXXX-XXXX-XXXX`. Easy to read aloud and type: no U, no I/L/O (read as 1, 1, 0), case and
 * separators (hyphens, spaces) ignored. A code is a bearer secret: only its SHA-256 is stored.
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from './secrets.ts';

export const LINK_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Characters of a code, separators excluded (12 × 5 bits = 60 bits). */
export const LINK_CODE_LENGTH = 12;
const GROUP = 4;

/** A fresh random code in display form (`XXXX-XXXX-XXXX`). */
export function generateLinkCodeText(): string {
  // 32 = 2^5 symbols: taking 5 bits per character keeps every character uniform.
  let bits = BigInt(`0x${randomBytes(8).toString('hex')}`);
  let chars = '';
  for (let i = 0; i < LINK_CODE_LENGTH; i++) {
    chars += LINK_CODE_ALPHABET[Number(bits & 31n)];
    bits >>= 5n;
  }
  return chars.match(new RegExp(`.{${GROUP}}`, 'g'))!.join('-');
}

/**
 * The canonical form of what a person typed (12 upper-case alphabet characters), or null when it
 * cannot be a code. Case-insensitive; hyphens and spaces ignored; O → 0, I and L → 1.
 */
export function normalizeLinkCode(input: string): string | null {
  const s = input.toUpperCase().replace(/[-\s]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (s.length !== LINK_CODE_LENGTH) return null;
  for (const c of s) if (!LINK_CODE_ALPHABET.includes(c)) return null;
  return s;
}

/** Hex SHA-256 of a normalised code: what the database keeps. */
export const hashLinkCode = (normalized: string): string => sha256Hex(normalized);
