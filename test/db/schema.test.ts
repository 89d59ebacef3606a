// Schema truth: the `DB` interface of src/db/schema.ts, read with the TypeScript compiler, describes exactly
// the tables and views the migrations create — columns, nullability, type and defaults — on both back ends.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/index.ts';
import {
  compareSchemas,
  readDatabaseSchema,
  readDeclaredSchema,
  SCHEMA_PATH,
  type ActualRelation,
  type DeclaredRelation,
} from '../support/schema-truth.ts';
import { backends, type Backend } from './backends.ts';

let declaredOnce: DeclaredRelation[] | undefined;
const declared = (): DeclaredRelation[] => (declaredOnce ??= readDeclaredSchema());

for (const b of await backends()) {
  describe.skipIf(b.skip)(`src/db/schema.ts against the migrated ${b.name} database`, () => {
    let backend: Backend;
    let actual: ActualRelation[];
    beforeAll(async () => {
      backend = b.make();
      const { db } = await backend.fresh();
      await migrateToLatest(db);
      actual = await readDatabaseSchema(db);
    });
    afterAll(async () => {
      await backend?.cleanup();
    });

    it('declares every table and view with the columns, nullability, types and defaults the database has', () => {
      const relations = declared();
      // Guard against a reader that finds nothing and so reports nothing.
      expect(relations.length).toBeGreaterThan(30);
      expect(actual.some((r) => r.kind === 'view')).toBe(true);
      const mismatches = compareSchemas(relations, actual);
      expect(mismatches, `${mismatches.length} mismatch(es) between src/db/schema.ts and the database`).toEqual([]);
    });

    it.runIf(b.name === 'pglite')('reports every mismatch of a drifted schema.ts, each saying what both sides say', () => {
      const drifted = mutate(readFileSync(SCHEMA_PATH, 'utf8'), [
        ['DB', '  kv_settings: KvSettingsTable;\n', '  ghosts: KvSettingsTable;\n'],
        ['ApiKeysTable', '  prefix: string;\n', ''],
        ['ApiKeysTable', '  label: string | null;\n', '  label: string | null;\n  nickname: string | null;\n'],
        ['AgentsTable', '  name: string;\n', '  name: string | null;\n'],
        ['MarketsTable', '  outcome_count: number;\n', '  outcome_count: string;\n'],
        ['MarketsTable', /listed: ColumnType<[^\n]*\n/, 'listed: boolean | null;\n'],
        ['EventSequenceTable', /last_seq: ColumnType<[^\n]*\n/, 'last_seq: Int8;\n'],
        ['IdempotencyRecordsTable', '  response_body: NullableJson<unknown>;\n', '  response_body: Json<unknown>;\n'],
        ['WalletSessionsTable', '  siwe_nonce: string;\n', '  siwe_nonce: ColumnType<string, string | undefined, string>;\n'],
        ['MarketTradeEventsTable', '  cost: string;\n', '  cost: number;\n'],
      ]);
      expect(compareSchemas(readDeclaredSchema(drifted), actual)).toEqual([
        'agents.name: schema.ts says string | null (nullable); the database says text NOT NULL',
        'api_keys.nickname: schema.ts declares string | null; the database has no such column',
        'api_keys.prefix: schema.ts does not declare it; the database has text NOT NULL',
        'event_sequence.last_seq: schema.ts requires it on insert (insert type string | bigint); the database fills it (default): declare Generated<S> or a ColumnType whose insert type allows undefined',
        'ghosts: schema.ts declares it; the database has no table or view of that name',
        'idempotency_records.response_body: schema.ts says unknown (not nullable, insert type string); the database says json NULL',
        'kv_settings: schema.ts does not declare it; the database has this table',
        'market_trade_events.cost: schema.ts says number; the database says numeric, which reads as string',
        'markets.listed: schema.ts lets the app write it (insert type boolean | null); the database makes it GENERATED ALWAYS and refuses written values: declare ColumnType<S, never, never>',
        'markets.outcome_count: schema.ts says string; the database says int2, which reads as number',
        'wallet_sessions.siwe_nonce: schema.ts lets an insert omit it (insert type string | undefined); the database says text NOT NULL with no default',
      ]);
    });
  });
}

/** Applies each [interface, from, to] edit inside that interface's body, and fails if one does not apply. */
function mutate(text: string, edits: Array<[string, string | RegExp, string]>): string {
  for (const [name, from, to] of edits) {
    const start = text.indexOf(`export interface ${name} {`);
    const end = text.indexOf('\n}', start) + 1;
    const body = start < 0 ? '' : text.slice(start, end);
    const edited = body.replace(from, to);
    if (start < 0 || edited === body) throw new Error(`edit of ${name} (${String(from)}) did not apply: update this test`);
    text = text.slice(0, start) + edited + text.slice(end);
  }
  return text;
}
