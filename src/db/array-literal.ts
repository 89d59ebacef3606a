/**
 * PostgreSQL's array literal, written here for both drivers rather than by each (node-postgres escapes every element
 * with two regular-expression replacements; PGlite's serializer likewise): `{"a","b \"c\"",NULL}`, each element quoted
 * with its quotes and backslashes escaped (one scan for an element that needs none), nested arrays nested.
 */
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
      out += NEEDS_ESCAPE.test(text) ? `"${text.replace(ESCAPED, '\\$&')}"` : `"${text}"`;
    }
  }
  return `${out}}`;
}

/** A flat array of texts and nulls (what `unnestRows` sends): written as its literal by either driver. */
export const isTextArray = (v: unknown): v is readonly (string | null)[] => Array.isArray(v) && v.every((e) => e === null || typeof e === 'string');
