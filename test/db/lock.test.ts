// The PGlite folder lock: one opener at a time (in this process or another), stale locks taken over,
// released on close. Nothing here reads DATABASE_URL, so a PostgreSQL run skips it rather than repeat it (.ci/run runs
// the process suites on each database).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src/db/index.ts';
import { blankPGlite } from '../support/pglite-template.ts';
import { FolderInUseError, LOCK_FILE_NAME, acquireFolderLock, isAlive } from '../../src/db/lock.ts';
import { onPostgres } from '../support/postgres.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-db-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A pid that existed and is now certainly dead: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(child.stdout);
  expect(isAlive(pid)).toBe(false);
  return pid;
}

describe.skipIf(onPostgres)('acquireFolderLock', () => {
  it('refuses a second holder in the same process, and frees the folder on release', () => {
    const dir = mkdtempSync(join(root, 'a-'));
    const lock = acquireFolderLock(dir);
    expect(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')).toBe(`${process.pid}\n`);
    expect(() => acquireFolderLock(dir)).toThrow(FolderInUseError);
    expect(() => acquireFolderLock(dir)).toThrow(`database folder ${dir} is in use by process ${process.pid}`);
    lock.release();
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    acquireFolderLock(dir).release();
  });

  it('takes over a lock left by a dead process', () => {
    const dir = mkdtempSync(join(root, 'b-'));
    writeFileSync(join(dir, LOCK_FILE_NAME), `${deadPid()}\n`);
    const lock = acquireFolderLock(dir);
    expect(readFileSync(lock.path, 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
  });

  it('refuses a lock held by another live process', async () => {
    const dir = mkdtempSync(join(root, 'c-'));
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      const pid = child.pid;
      if (pid === undefined) throw new Error('child did not start');
      writeFileSync(join(dir, LOCK_FILE_NAME), `${pid}\n`);
      expect(() => acquireFolderLock(dir)).toThrow(`database folder ${dir} is in use by process ${pid}`);
    } finally {
      child.kill();
    }
  });

  it('does not release a lock that someone else has since taken over', () => {
    const dir = mkdtempSync(join(root, 'd-'));
    const lock = acquireFolderLock(dir);
    writeFileSync(lock.path, '999999999\n');
    lock.release();
    expect(readFileSync(lock.path, 'utf8')).toBe('999999999\n');
  });
});

describe.skipIf(onPostgres)('openDatabase on a PGlite folder', () => {
  it('creates missing parents, locks the folder, refuses a second open, and unlocks on close', async () => {
    const dir = join(root, 'nested', 'deeper', 'pgdata');
    const first = await openDatabase({ pgliteDir: dir });
    try {
      expect(first.kind).toBe('pglite');
      expect(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')).toBe(`${process.pid}\n`);
      await expect(openDatabase({ pgliteDir: dir })).rejects.toThrow(
        `database folder ${dir} is in use by process ${process.pid}`,
      );
      await migrateToLatest(first.db);
      await first.db.insertInto('kv_settings').values({ key: 'kept', value: '1', updated_at: new Date() }).execute();
    } finally {
      await first.close();
    }
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);
    await first.close(); // twice is fine

    const again = await openDatabase({ pgliteDir: dir });
    try {
      expect(await migrateToLatest(again.db)).toEqual({ applied: [] });
      expect(await again.db.selectFrom('kv_settings').select('key').execute()).toEqual([{ key: 'kept' }]);
    } finally {
      await again.close();
    }
  });

  it('another process is refused while we hold the folder', async () => {
    const dir = join(root, 'shared');
    const held = await blankPGlite(dir); // a folder opened and locked like any other, without initdb's seconds
    try {
      const indexTs = fileURLToPath(new URL('../../src/db/index.ts', import.meta.url));
      const script = `
        const { openDatabase } = await import(${JSON.stringify(indexTs)});
        try { await openDatabase({ pgliteDir: ${JSON.stringify(dir)} }); console.log('OPENED'); process.exit(0); }
        catch (e) { console.log(e.message); process.exit(3); }`;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
      });
      expect(child.stdout.trim()).toBe(
        `database folder ${dir} is in use by process ${process.pid} (if that process is not svc, delete ${join(dir, LOCK_FILE_NAME)})`,
      );
      expect(child.status).toBe(3);
    } finally {
      await held.close();
    }
  });
});
