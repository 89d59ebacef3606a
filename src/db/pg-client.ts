/**
 * The node-postgres client the pool makes (docs/orderbook.md "Round trips"), with three habits of its own:
 * - **Writes of one tick leave together.** The socket is corked when a query is sent and uncorked on the next tick, so
 *   the statements of a pipeline (src/db/pipeline.ts) go out in one write instead of one each.
 * - **Arrays of texts are written once** as their literal (array-literal.ts), not escaped element by element by
 *   node-postgres.
 * - **Hot statements stay prepared.** A statement text seen often is sent as a named prepared statement, parsed and
 *   analysed once per connection instead of on every run. At most HOT_PER_CONNECTION per connection, so the server's
 *   memory stays bounded; a statement the server refuses to run again because the schema changed under it (0A000) is
 *   forgotten and prepared afresh under another name on its next use.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { arrayLiteral, isTextArray } from './array-literal.ts';

/** Statements that are worth keeping prepared (not DDL, not transaction control). */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
/** A statement is kept prepared from its HOT_AFTER-th run in the process on. */
const HOT_AFTER = 3;
/** Prepared statements kept per connection at most (later hot ones run unnamed). */
const HOT_PER_CONNECTION = 200;
/** Statement texts counted at most; past it the counts start over. */
const MAX_COUNTED = 5_000;
/** PostgreSQL's refusal to run a prepared statement whose result type changed under it. */
const PLAN_CHANGED = '0A000';

/** Per statement text: how often it ran, and its name once it is hot. */
const seen = new Map<string, { runs: number; name: string | null }>();
/** Bumped when a statement must be prepared again under a new name (the old one is still on the connections). */
const generations = new Map<string, number>();

function hotName(text: string): string | null {
  let entry = seen.get(text);
  if (!entry) {
    if (seen.size >= MAX_COUNTED) seen.clear();
    seen.set(text, (entry = { runs: 0, name: null }));
  }
  if (entry.name === null && ++entry.runs >= HOT_AFTER) entry.name = `svc_${createHash('sha1').update(text).digest('hex').slice(0, 20)}_${generations.get(text) ?? 0}`;
  return entry.name;
}

interface Internals {
  connection: { stream: { cork(): void; uncork(): void; writable?: boolean }; parsedStatements: Record<string, string> };
}

export class SvcPgClient extends pg.Client {
  private readonly prepared = new Set<string>();
  private corked = false;

  // node-postgres' overloads are many; the ones used here are (text, values) with a promise, and a config object.
  override query(config: unknown, values?: unknown, callback?: unknown): never {
    this.corkForTick();
    const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => never;
    // An array of texts goes as its literal (array-literal.ts): what node-postgres would send, written in one scan.
    if (Array.isArray(values) && values.some(isTextArray)) values = values.map((v) => (isTextArray(v) ? arrayLiteral(v) : v));
    if (typeof config !== 'string' || !Array.isArray(values) || callback !== undefined || !PREPARABLE.test(config)) return query.call(this, config, values, callback);
    const name = hotName(config);
    if (name === null || (!this.prepared.has(name) && this.prepared.size >= HOT_PER_CONNECTION)) return query.call(this, config, values);
    this.prepared.add(name);
    const running = new Promise<unknown>((resolve, reject) => {
      // The Query made from the text (a config object would be copied property by property on every run, ~1 % of the
      // service's thread in a placement round), named, and handed over as it is.
      const named = new pg.Query(config, values) as pg.Query & { name?: string; callback?: (err: Error | null, result: unknown) => void };
      named.name = name;
      named.callback = (err, result) => (err ? reject(err) : resolve(result));
      query.call(this, named);
    });
    return running.catch((err: unknown) => {
      if ((err as { code?: unknown } | null)?.code === PLAN_CHANGED) {
        this.prepared.delete(name);
        delete (this as unknown as Internals).connection.parsedStatements[name];
        generations.set(config, (generations.get(config) ?? 0) + 1);
        seen.delete(config);
      }
      throw err;
    }) as never;
  }

  /** Holds the socket's writes until the next tick, once per tick. */
  private corkForTick(): void {
    if (this.corked) return;
    const stream = (this as unknown as Internals).connection.stream;
    this.corked = true;
    stream.cork();
    process.nextTick(() => {
      this.corked = false;
      stream.uncork();
    });
  }
}
