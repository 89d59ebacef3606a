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
  return sql`unnest(${sql.join(arrays.map((a) => sql`${a}::text[]`))}) AS ${sql.raw(alias)} (${sql.raw(columns.join(', '))})`;
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
