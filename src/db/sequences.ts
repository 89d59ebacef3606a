/**
 * Numbers a writer takes from a column's identity sequence before it writes the rows (an order's seq, a fill's id, a
 * ledger operation's seq): known to the writer's next statements, written with OVERRIDING SYSTEM VALUE. The sequence
 * is named in the statement as a regclass constant, so a kept statement resolves it once when it is planned;
 * `nextval(pg_get_serial_sequence(table, column))` looked the name up again for every number (250 µs for 15 numbers on
 * PGlite, 100 µs by name). The names are PostgreSQL's for an identity column (table_column_seq), checked against the
 * catalog by test/db/sequences.test.ts.
 */
import type { CompiledQuery } from 'kysely';
import { fixedStatement } from './statement.ts';
import type { Step } from './pipeline.ts';

export const IDENTITY_SEQUENCES = {
  'orders.seq': 'orders_seq_seq',
  'order_fills.id': 'order_fills_id_seq',
  'ledger_operations.seq': 'ledger_operations_seq_seq',
} as const;

const TAKE = Object.fromEntries(
  Object.entries(IDENTITY_SEQUENCES).map(([column, sequence]) => [column, fixedStatement(`SELECT nextval('${sequence}'::regclass)::text AS n FROM generate_series(1, $1)`)]),
) as Record<keyof typeof IDENTITY_SEQUENCES, (n: number) => CompiledQuery>;

/** `n` numbers from the identity sequence of `column` (table.column), ascending, as decimal strings. */
export function takeNumbers(column: keyof typeof IDENTITY_SEQUENCES, n: number): Step<string[]> {
  return {
    query: TAKE[column](n),
    read: ({ rows }) => rows.map((r) => r.n as string).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)),
  };
}
