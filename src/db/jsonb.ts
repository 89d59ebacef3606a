/**
 * A JSON value as a jsonb column gives it back: what JSON.stringify keeps (no undefined, Dates as their ISO text), every
 * object's keys in jsonb's order — shorter keys first, keys of one length by their UTF-8 bytes, a repeated key once
 * (the last). Lets a process hand on what it just wrote (src/services/events/bus.ts committed) exactly as a read of
 * the row would answer it.
 */
const encoder = new TextEncoder();

/** Printable ASCII only: its UTF-8 bytes are its UTF-16 code units, one each (nearly every key; it spares two encodings a comparison). */
const ASCII = /^[ -~]*$/;

function compareKeys(a: string, b: string): number {
  if (ASCII.test(a) && ASCII.test(b)) return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
  const [x, y] = [encoder.encode(a), encoder.encode(b)];
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => compareKeys(a, b));
  return Object.fromEntries(entries.map(([k, v]) => [k, ordered(v)]));
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
const OMITTED = Symbol('omitted');

/**
 * The value as JSON.parse(JSON.stringify(value)) gives it, keys in jsonb's order, made in one walk as JSON would
 * write it (one toJSON per value, then an object's own enumerable string keys); a boxed primitive or a bigint (which
 * must throw) goes through JSON itself.
 */
function canonical(value: unknown, key: string, viaToJson = false): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'undefined':
    case 'function':
    case 'symbol':
      return OMITTED;
    case 'object': {
      if (value === null) return null;
      if (!viaToJson && typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonical((value as { toJSON: (k: string) => unknown }).toJSON(key), key, true);
      if (Array.isArray(value)) {
        return value.map((v, i) => {
          const c = canonical(v, String(i));
          return c === OMITTED ? null : c;
        });
      }
      // A boxed primitive is written as its primitive: JSON itself does it.
      if (value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt) break;
      // Any other object (a class instance, a Map, what a toJSON answered) is its own enumerable string keys.
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(value).sort(compareKeys)) {
        const c = canonical((value as Record<string, unknown>)[k], k);
        if (c !== OMITTED) out[k] = c;
      }
      return out;
    }
    default:
      break;
  }
  const text = JSON.stringify(value);
  return text === undefined ? OMITTED : ordered(JSON.parse(text));
}

export function asJsonb<T>(value: T): T {
  const c = canonical(value, '');
  return (c === OMITTED ? null : c) as T;
}
