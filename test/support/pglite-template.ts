// A migrated PGlite database, dumped once and kept in the temp folder under a key of the migrations and the
// PGlite version; every test database opens a copy of it (about 0.5 s) instead of running initdb and the
// migrations again (about 3.5 s). A change to any migration makes a new key, so a stale copy is never used.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/index.ts';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../src/db/migrations');

function templateKey(): string {
  const hash = createHash('sha256');
  // The package exports no package.json: read the installed one.
  hash.update(readFileSync(path.resolve(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json')));
  for (const name of readdirSync(MIGRATIONS).sort()) hash.update(`${name}\n`).update(readFileSync(path.join(MIGRATIONS, name)));
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<Blob> | undefined;

async function makeTemplate(): Promise<Blob> {
  const file = path.join(tmpdir(), `svc-pglite-template-${templateKey()}.tar`);
  if (!existsSync(file)) {
    const database = await openDatabase({ pgliteDir: 'memory://' });
    try {
      await migrateToLatest(database.db);
      const dump = await database.dump!();
      // Written under a private name, then renamed: a parallel worker never reads half a file.
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      renameSync(partial, file);
    } finally {
      await database.close();
    }
  }
  return new Blob([readFileSync(file)]);
}

/** A new PGlite database with every migration applied: in memory, or in a new data folder `dir`. */
export async function migratedPGlite(dir = 'memory://'): Promise<Database> {
  template ??= makeTemplate();
  return openDatabase({ pgliteDir: dir, pgliteDump: await template });
}
