// The suites a run on PostgreSQL leaves to the run on PGlite (vitest.config.ts DATABASE_FREE_FOLDERS) never reach a
// database: no file they import, directly or through others (type-only and dynamic imports count), is under src/db or
// is one of the test databases' helpers, and none names DATABASE_URL. A suite there that starts to use one fails here,
// and belongs in another folder.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FREE_FOLDERS } from '../../vitest.config.ts';
import { importGraph, sourceFiles } from '../support/import-graph.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const filesUnder = (folder: string, suffix: string) => sourceFiles(path.join(ROOT, folder), suffix);
const DATABASE_HELPERS = ['harness.ts', 'postgres.ts', 'pglite-template.ts', 'shared-chain.ts'].map((f) => path.join(ROOT, 'test', 'support', f));

/** The first file of `file`'s imports, itself included, that reaches a database, with the path to it; null if none. */
function databaseReachedFrom(graph: Map<string, string[]>, file: string): string[] | null {
  const seen = new Set<string>();
  const walk = (at: string, trail: string[]): string[] | null => {
    if (seen.has(at)) return null;
    seen.add(at);
    const here = [...trail, path.relative(ROOT, at)];
    if (at.startsWith(path.join(ROOT, 'src', 'db') + path.sep) || DATABASE_HELPERS.includes(at)) return here;
    if (graph.has(at) && readFileSync(at, 'utf8').includes('DATABASE_URL')) return here;
    for (const next of graph.get(at) ?? []) {
      const found = walk(next, here);
      if (found) return found;
    }
    return null;
  };
  return walk(file, []);
}

describe('the suites a run on PostgreSQL leaves out', () => {
  const graph = importGraph([...filesUnder('src', '.ts'), ...filesUnder('test', '.ts'), ...filesUnder('bin', '.mjs')]);

  it.each(DATABASE_FREE_FOLDERS)('%s: none reaches a database', (folder) => {
    const suites = filesUnder(folder, '.test.ts');
    expect(suites.length).toBeGreaterThan(0);
    expect(suites.map((suite) => databaseReachedFrom(graph, suite)).filter((trail) => trail !== null)).toEqual([]);
  });

  it('finds the way to a database when there is one (the check itself works)', () => {
    expect(databaseReachedFrom(graph, path.join(ROOT, 'src', 'runtime', 'runtime.ts'))?.at(-1)).toMatch(/^src\/db\//);
    expect(databaseReachedFrom(graph, path.join(ROOT, 'src', 'config.ts'))).toEqual(['src/config.ts']);
    expect(databaseReachedFrom(graph, path.join(ROOT, 'src', 'core', 'orderbook', 'engine.ts'))).toBeNull();
  });
});
