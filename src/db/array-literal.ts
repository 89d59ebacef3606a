/**
 * PostgreSQL's array literal, written here for both drivers rather than by each (node-postgres escapes every element
 * with two regular-expression replacements; PGlite's serializer likewise): `{"a","b \"c\"",NULL}`, each element quoted
 * with its quotes and backslashes escaped (one scan for an element that needs none), nested arrays nested.
 *
 * An element that needs escaping is quoted by JSON.stringify when it holds no control character and no lone
 * surrogate: then JSON escapes exactly what the array literal does (a quote and a backslash, each with a backslash),
 * several times faster than a regular-expression replacement. A placement round sends ~1,000 elements in ~30 KB, its
 * JSON texts (event payloads, the Idempotency-Key answers, the ledger's operations) full of quotes: this halved the
 * literals' time (~0.3 to ~0.16 ms a round; docs/orderbook.md, session 26). Any other element is escaped by the
 * replacement.
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const JSON_QUOTES_OTHERWISE = /[\u0000-\u001f\ud800-\udfff]/;
const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/**
 * The literal of `values`, each element through `element` (default: its text), null and undefined as NULL. `separator`
 * is `;` for PostgreSQL's box type and `,` for every other.
 */
export function arrayLiteral(values: readonly unknown[], element?: (v: unknown) => string, separator = ','): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += separator;
    const v = values[i];
    if (Array.isArray(v)) out += arrayLiteral(v, element, separator);
    else if (v === null || v === undefined) out += 'NULL';
    else {
      const text = element ? element(v) : String(v);
      if (!NEEDS_ESCAPE.test(text)) out += `"${text}"`;
      else out += JSON_QUOTES_OTHERWISE.test(text) ? `"${text.replace(ESCAPED, '\\$&')}"` : JSON.stringify(text);
    }
  }
  return `${out}}`;
}

/** A flat array of texts and nulls (what `unnestRows` sends): written as its literal by either driver. */
export const isTextArray = (v: unknown): v is readonly (string | null)[] => Array.isArray(v) && v.every((e) => e === null || typeof e === 'string');
