/**
 * A last good copy of the embedded anvil's state file. anvil rewrites `state.json` in place once a second, so a kill
 * during a write leaves it cut short (docs/chain.md "Embedded anvil"). Every few seconds, when the file changed, it is
 * read and parsed; a complete one is copied to `state.good.json` (written to a temporary file, then renamed: the copy
 * is always whole). A start that finds the state unreadable starts from that copy, which holds everything but the last
 * seconds (the relayer then replays the operator transactions after it), instead of from an empty chain.
 */
import { copyFile, readFile, rename, stat, writeFile } from 'node:fs/promises';
import type { Logger } from '../core/logger.ts';

export const backupPathOf = (stateFile: string): string => stateFile.replace(/\.json$/, '') + '.good.json';

/** Whether the file holds complete JSON (anvil's dump is one object). */
async function isComplete(path: string): Promise<string | null> {
  try {
    const text = await readFile(path, 'utf8');
    JSON.parse(text);
    return text;
  } catch {
    return null;
  }
}

export interface StateBackup {
  /** Copies the state file if it changed and is complete; resolves whether it copied. */
  runOnce(): Promise<boolean>;
  stop(): void;
}

export function keepStateBackup(stateFile: string, opts: { intervalMs: number; log: Logger }): StateBackup {
  const backup = backupPathOf(stateFile);
  let lastCopied = 0;
  let running: Promise<boolean> | null = null;
  const runOnce = (): Promise<boolean> => {
    running ??= (async () => {
      try {
        const changed = (await stat(stateFile)).mtimeMs;
        if (changed === lastCopied) return false;
        const text = await isComplete(stateFile);
        if (text === null) return false; // mid-write: the next tick sees it whole
        await writeFile(`${backup}.tmp`, text);
        await rename(`${backup}.tmp`, backup);
        lastCopied = changed;
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') opts.log.warn({ err }, 'chain: the state backup failed; it retries on the next tick');
        return false;
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const timer = setInterval(() => void runOnce(), opts.intervalMs);
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}

/** Puts the last good copy in place of an unreadable state file; resolves whether there was one. */
export async function restoreStateBackup(stateFile: string): Promise<boolean> {
  const backup = backupPathOf(stateFile);
  if ((await isComplete(backup)) === null) return false;
  await copyFile(backup, stateFile);
  return true;
}
