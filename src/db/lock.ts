// An exclusive lock file for a PGlite data folder: PGlite never locks its folder, and two processes
// writing one folder silently lose writes.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE_NAME = '.svc.lock';
const FRESH_EMPTY_LOCK_MS = 5_000;

export interface FolderLock {
  /** The lock file's path. */
  readonly path: string;
  /** Removes the lock file if it is still ours. Safe to call twice. */
  release(): void;
}

/** Thrown when a live process already holds the folder. */
export class FolderInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
    readonly lockPath: string,
  ) {
    super(`database folder ${dir} is in use by process ${pid} (if that process is not svc, delete ${lockPath})`);
    this.name = 'FolderInUseError';
  }
}

/**
 * Takes `<dir>/.svc.lock` (the folder must exist). Fails with FolderInUseError if a live process holds
 * it; takes over a lock whose process is dead. The same process opening the folder twice also fails.
 */
export function acquireFolderLock(dir: string): FolderLock {
  const path = join(dir, LOCK_FILE_NAME);
  const content = `${process.pid}\n`;
  // A few rounds only matter when another process takes over the same stale lock at the same moment.
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createWithContent(path, content)) return makeLock(path, content);
    const existing = readLockFile(path);
    if (existing === undefined) continue; // vanished between our open and read: try again
    const pid = parsePid(existing);
    if (pid !== undefined && isAlive(pid)) throw new FolderInUseError(dir, pid, path);
    // An empty file this young is most likely another process between its create and its write.
    if (pid === undefined && ageMs(path) < FRESH_EMPTY_LOCK_MS) {
      throw new Error(`database folder ${dir} is being locked by another process (${path} has no pid yet)`);
    }
    // Dead or unreadable owner: take it over, but only if nobody replaced the file meanwhile.
    // (A tiny window remains between this re-read and the unlink; acceptable for one host's operator.)
    if (readLockFile(path) === existing) {
      try {
        unlinkSync(path);
      } catch (err) {
        if (!isErrno(err, 'ENOENT')) throw err;
      }
    }
  }
  throw new Error(`could not take the lock file ${path}: it keeps changing; is another svc starting?`);
}

/** Creates `path` holding `content` with the `wx` flag, or returns false if it already exists. */
function createWithContent(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (err) {
    if (isErrno(err, 'EEXIST')) return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function makeLock(path: string, content: string): FolderLock {
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      // Never delete a lock someone else took over (e.g. after we were wrongly presumed dead).
      if (readLockFile(path) !== content) return;
      try {
        unlinkSync(path);
      } catch (err) {
        if (!isErrno(err, 'ENOENT')) throw err;
      }
    },
  };
}

function readLockFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    throw err;
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function parsePid(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^[0-9]+$/.test(trimmed)) return undefined;
  const pid = Number(trimmed);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** True if a process with this pid exists (EPERM means it exists but belongs to another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return isErrno(err, 'EPERM');
  }
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
