import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { fixedStatement } from './statement.ts';
import { unnestRows } from './unnest.ts';

const db = new Kysely<Record<string, never>>({
  dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (k) => new PostgresIntrospector(k), createQueryCompiler: () => new PostgresQueryCompiler() },
});

describe('statements written once', () => {
  it('runs its text, on one line, with the parameters in the order given', () => {
    const lock = fixedStatement(`SELECT state FROM markets
      WHERE chain_id = $1 AND address = $2 FOR UPDATE`);
    const q = lock(8453, '0xabc');
    expect(q.sql).toBe('SELECT state FROM markets WHERE chain_id = $1 AND address = $2 FOR UPDATE');
    expect(q.parameters).toEqual([8453, '0xabc']);
    expect(q.query.kind).toBe('RawNode');
    expect(lock(1, '0xdef').parameters).toEqual([1, '0xdef']);
  });

  it('unnest: one text array per column, numbered in place inside a larger statement, the same text every time', () => {
    const rows = [
      ['a', 1n, null],
      ['b"c', 2n, new Date('2026-12-07T00:00:00.000Z')],
    ];
    const build = () => sql`INSERT INTO t (x, y, z) SELECT u.x, u.y::numeric, u.z::timestamptz FROM ${unnestRows('u', ['x', 'y', 'z'], rows)} WHERE ${7} > 0`.compile(db);
    const q = build();
    expect(q.sql).toBe('INSERT INTO t (x, y, z) SELECT u.x, u.y::numeric, u.z::timestamptz FROM unnest($1::text[], $2::text[], $3::text[]) AS u (x, y, z) WHERE $4 > 0');
    expect(q.parameters).toEqual([['a', 'b"c'], ['1', '2'], [null, '2026-12-07T00:00:00.000Z'], 7]);
    expect(build().sql).toBe(q.sql);
    expect(sql`${unnestRows('v', ['only'], [['x']])}`.compile(db).sql).toBe('unnest($1::text[]) AS v (only)');
  });
});
