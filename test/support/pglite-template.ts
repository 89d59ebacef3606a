// PGlite databases for tests, opened from a dump instead of created: an empty one (as after initdb) and a migrated
// one. Each is made once and kept in the temp folder under a key of the PGlite version, the code that makes it (and,
// for the migrated one, the migrations), so a change to any of them makes a new key and a stale copy is never used.
// Opening a copy takes about 0.2 s; initdb takes 2-3 s and the migrations about 0.3 s more.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase, PGLITE_COMMAND_SETTINGS, pgliteStartParams, type Database } from '../../src/db/index.ts';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../src/db/migrations');
type Kind = 'blank' | 'migrated';

function templateKey(kind: Kind): string {
  const hash = createHash('sha256').update(`${kind}\n`);
  // How a template is made (this file) and dumped (the dialect's compactDump) are part of what it is.
  for (const file of [import.meta.filename, path.resolve(import.meta.dirname, '../../src/db/index.ts')]) hash.update(readFileSync(file));
  // The package exports no package.json: read the installed one.
  hash.update(readFileSync(path.resolve(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json')));
  if (kind === 'migrated') for (const name of readdirSync(MIGRATIONS).sort()) hash.update(`${name}\n`).update(readFileSync(path.join(MIGRATIONS, name)));
  return hash.digest('hex').slice(0, 16);
}

const templates = new Map<Kind, Promise<Blob>>();

/**
 * Settings of every test database: those of a database opened for one command (16 MB of shared buffers instead of 128).
 * A test's database holds a few thousand rows, and PGlite sets its shared buffers up at every start: 128 MB of them took
 * ~0.4 s of each server's start.
 */
export const TEST_PGLITE_SETTINGS = PGLITE_COMMAND_SETTINGS;

/**
 * A Blob of bytes held in memory whose arrayBuffer() answers them as they are. PGlite reads a dump with arrayBuffer(),
 * and Node 20's reads a Blob chunk by chunk into a new buffer: ~0.25 s for a 40 MB dump at every start of a test
 * database, and a copy of it ~0.1 s more. PGlite only reads the tarball: it writes a copy of each file into its own file
 * system (MEMFS writeFile, which does not take ownership), so every start can be given the same bytes.
 */
export class BytesBlob extends Blob {
  readonly #buffer: ArrayBuffer;
  constructor(bytes: Uint8Array) {
    super([bytes]);
    this.#buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
  override async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#buffer;
  }
}

async function makeTemplate(kind: Kind): Promise<Blob> {
  const file = path.join(tmpdir(), `svc-pglite-${kind}-${templateKey(kind)}.tar`);
  if (!existsSync(file)) {
    const database = await openDatabase({ pgliteDir: 'memory://' });
    try {
      // PGlite runs in the database "postgres"; initdb's template0 and template1 are 15 MB of the dump that no test uses.
      await sql`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`.execute(database.db);
      await sql`DROP DATABASE template0`.execute(database.db);
      await sql`DROP DATABASE template1`.execute(database.db);
      if (kind === 'migrated') await migrateToLatest(database.db);
      const dump = await database.dump!();
      // Written under a private name, then renamed: a parallel worker never reads half a file.
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      renameSync(partial, file);
      removeStaleTemplates(kind, file);
    } finally {
      await database.close();
    }
  }
  return new BytesBlob(readFileSync(file));
}

/**
 * Deletes this kind's templates of other keys written over a day ago. Every change to a migration or to how a template
 * is made leaves one behind (12 MB); a checkout that still wants a deleted one makes it again (a few seconds).
 */
function removeStaleTemplates(kind: Kind, keep: string): void {
  const dir = path.dirname(keep);
  const dayAgo = Date.now() - 86_400_000;
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (file === keep || !name.startsWith(`svc-pglite-${kind}-`) || !name.endsWith('.tar')) continue;
    try {
      if (statSync(file).mtimeMs < dayAgo) rmSync(file, { force: true });
    } catch {
      // Gone already (another worker, another run).
    }
  }
}

function template(kind: Kind): Promise<Blob> {
  let made = templates.get(kind);
  if (!made) templates.set(kind, (made = makeTemplate(kind)));
  return made;
}

/** A new PGlite database with every migration applied: in memory, or in a new data folder `dir`. */
export async function migratedPGlite(dir = 'memory://'): Promise<Database> {
  return openDatabase({ pgliteDir: dir, pgliteDump: await template('migrated'), pgliteSettings: TEST_PGLITE_SETTINGS });
}

/** A new empty PGlite database, as initdb leaves it: in memory, or in a new data folder `dir`. */
export async function blankPGlite(dir = 'memory://'): Promise<Database> {
  return openDatabase({ pgliteDir: dir, pgliteDump: await template('blank'), pgliteSettings: TEST_PGLITE_SETTINGS });
}

/** A bare PGlite instance (no dialect around it), empty as after initdb, from the same template. */
export async function blankPGliteInstance(): Promise<PGlite> {
  return PGlite.create('memory://', { loadDataDir: await template('blank'), startParams: pgliteStartParams(TEST_PGLITE_SETTINGS) });
}
