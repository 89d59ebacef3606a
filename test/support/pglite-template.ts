// PGlite databases for tests, opened from a dump instead of created: an empty one (as after initdb) and a migrated
// one. Each is made once and kept in the temp folder under a key of the PGlite version (and, for the migrated one,
// the migrations), so a change to any migration makes a new key and a stale copy is never used. Opening a copy
// takes about 0.5 s; initdb takes 2-3 s and the migrations about 0.3 s more.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/index.ts';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../src/db/migrations');
type Kind = 'blank' | 'migrated';

function templateKey(kind: Kind): string {
  const hash = createHash('sha256').update(`${kind}\n`);
  // The package exports no package.json: read the installed one.
  hash.update(readFileSync(path.resolve(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json')));
  if (kind === 'migrated') for (const name of readdirSync(MIGRATIONS).sort()) hash.update(`${name}\n`).update(readFileSync(path.join(MIGRATIONS, name)));
  return hash.digest('hex').slice(0, 16);
}

const templates = new Map<Kind, Promise<Blob>>();

async function makeTemplate(kind: Kind): Promise<Blob> {
  const file = path.join(tmpdir(), `svc-pglite-${kind}-${templateKey(kind)}.tar`);
  if (!existsSync(file)) {
    const database = await openDatabase({ pgliteDir: 'memory://' });
    try {
      if (kind === 'migrated') await migrateToLatest(database.db);
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

function template(kind: Kind): Promise<Blob> {
  let made = templates.get(kind);
  if (!made) templates.set(kind, (made = makeTemplate(kind)));
  return made;
}

/** A new PGlite database with every migration applied: in memory, or in a new data folder `dir`. */
export async function migratedPGlite(dir = 'memory://'): Promise<Database> {
  return openDatabase({ pgliteDir: dir, pgliteDump: await template('migrated') });
}

/** A new empty PGlite database, as initdb leaves it: in memory, or in a new data folder `dir`. */
export async function blankPGlite(dir = 'memory://'): Promise<Database> {
  return openDatabase({ pgliteDir: dir, pgliteDump: await template('blank') });
}

/** A bare PGlite instance (no dialect around it), empty as after initdb, from the same template. */
export async function blankPGliteInstance(): Promise<PGlite> {
  return PGlite.create('memory://', { loadDataDir: await template('blank') });
}
