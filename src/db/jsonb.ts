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

export function asJsonb<T>(value: T): T {
  const text = JSON.stringify(value);
  return (text === undefined ? null : ordered(JSON.parse(text))) as T;
}
