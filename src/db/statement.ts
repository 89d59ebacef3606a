/**
 * Statements whose text never changes, written once with their placeholders ($1, $2, …) and run with new parameters:
 * what Kysely would compile them to, without building and compiling a query tree on every run. A placement round runs
 * ~20 statements; building them with Kysely's query builder or `sql` cost ~5-15 µs each, in the round's transaction
 * (docs/orderbook.md, session 26). A statement written here is still seen by the write watch (src/db/write-watch.ts
 * reads a raw statement's text).
 */
import { CompiledQuery } from 'kysely';

/** `text` with these parameters, in the order of their placeholders. Its runs of white space become one space (so no literal in it may depend on them). */
export function fixedStatement(text: string): (...parameters: unknown[]) => CompiledQuery {
  const compact = text.replace(/\s+/g, ' ').trim();
  return (...parameters) => CompiledQuery.raw(compact, parameters);
}
