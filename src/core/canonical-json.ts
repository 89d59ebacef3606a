/**
 * Canonical JSON: object keys sorted recursively (by UTF-16 code unit, as Array#sort does),
 * `undefined` members dropped, no whitespace. A null or absent payload canonicalises to '{}'.
 * Used for wallet-proof payload hashes and idempotency request fingerprints; the rules and
 * test vectors are in docs/canonical-json.md.
 */
import { createHash } from 'node:crypto';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json | undefined };

export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return '{}';
  return encode(value);
}

function encode(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonical JSON cannot encode a non-finite number');
      return JSON.stringify(value);
    case 'string':
      return JSON.stringify(value);
    case 'bigint':
      // Money travels as decimal strings; a bigint here is encoded the same way.
      return JSON.stringify(value.toString());
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : encode(v))).join(',')}]`;
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${encode(obj[k])}`).join(',')}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot encode a ${typeof value}`);
  }
}

/** SHA-256 of the canonical JSON, as 0x-prefixed lowercase hex. */
export function canonicalHash(value: unknown): `0x${string}` {
  return `0x${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}
