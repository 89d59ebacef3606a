/**
 * Rows as parameters of a constant statement: `unnest(...)` over one text array per column, cast back to each column's
 * type where it is read. A VALUES list has a different text for every number of rows, so a statement written with one
 * is prepared (PGlite's kept statements, PostgreSQL's named ones: src/db/pg-client.ts) again for every batch size;
 * this one is the same statement however many rows it carries.
 */
import { sql, type RawBuilder } from 'kysely';

export type Cell = string | number | bigint | boolean | Date | null | undefined;

/** The text of a cell as PostgreSQL reads it back by a cast (a Date in ISO 8601; null stays NULL). */
const textOf = (v: Cell): string | null => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : String(v));

/**
 * `unnest($1::text[], …) AS <alias> (<columns>)` over `rows` (one cell per column, in `columns`' order): every column
 * is text, to be cast where it is read (`u.id::uuid`).
 */
export function unnestRows(alias: string, columns: readonly string[], rows: readonly (readonly Cell[])[]): RawBuilder<unknown> {
  const arrays = columns.map((_, c) => rows.map((r) => textOf(r[c])));
  return sql(fragmentsOf(alias, columns), ...arrays);
}

/**
 * The text around unnest's parameters, `unnest(` … `::text[], ` … `::text[]) AS u (a, b)`, made once per alias and
 * column list: one builder with a parameter per column instead of a builder per column joined (the order loop's rows
 * go this way, ~10 statements a round).
 */
const fragments = new Map<string, TemplateStringsArray>();
function fragmentsOf(alias: string, columns: readonly string[]): TemplateStringsArray {
  const key = `${alias}(${columns.join(',')})`;
  let made = fragments.get(key);
  if (!made) {
    const parts = ['unnest(', ...columns.slice(1).map(() => '::text[], '), `::text[]) AS ${alias} (${columns.join(', ')})`];
    made = Object.assign(parts, { raw: parts }) as unknown as TemplateStringsArray;
    if (fragments.size < 500) fragments.set(key, made);
  }
  return made;
}

/**
 * `jsonb_populate_recordset(NULL::<table>, $1::jsonb)`: `rows` (objects keyed by column; a bigint goes as its decimal
 * text, a Date as its ISO text) turned into rows of the table's own type, each value read as its column's type. One
 * parameter and one statement text whatever the number of rows, for a statement over many columns of one table
 * (`INSERT INTO t (a, b) SELECT a, b FROM ${jsonRows('t', rows)}`); a column a row leaves out reads NULL.
 */
export function jsonRows(table: string, rows: readonly object[]): RawBuilder<unknown> {
  const text = JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  return sql`jsonb_populate_recordset(NULL::${sql.table(table)}, ${text}::jsonb)`;
}
