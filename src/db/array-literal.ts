/**
 * PostgreSQL's array literal, written once by us rather than by each driver (node-postgres escapes every element with
 * two regular-expression replacements; PGlite's serializer likewise): `{"a","b \"c\"",NULL}`, each element quoted, its
 * quotes and backslashes escaped, one scan for an element that needs none.
 */
const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/** An element in double quotes, its quotes and backslashes escaped. */
export const quotedElement = (text: string): string => (NEEDS_ESCAPE.test(text) ? `"${text.replace(ESCAPED, '\\$&')}"` : `"${text}"`);

/** A text[] literal of these elements (null: SQL NULL). */
export function textArrayLiteral(values: readonly (string | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (i > 0) out += ',';
    out += v === null ? 'NULL' : quotedElement(v);
  }
  return `${out}}`;
}
