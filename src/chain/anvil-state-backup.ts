/**
 * A last good copy of the embedded anvil's state file. anvil rewrites `state.json` in place once a second, so a kill
 * during a write leaves it cut short (docs/chain.md "Embedded anvil"). Every few seconds, when the file changed, it is
 * read and parsed; a complete one is copied to `state.good.json` (written to a temporary file, then renamed: the copy
 * is always whole). A start that finds the state unreadable starts from that copy, which holds everything but the last
 * seconds (the relayer then replays the operator transactions after it), instead of from an empty chain.
 *
 * The read, the parse and the copy run on a worker thread. The dump holds the chain's blocks and transactions, so it
 * only grows: 7 MB after a minute of the order bench took 17–47 ms to read and parse, and on the main thread that
 * stalled every request each time (bench/orderbook-http.ts p99). Running for days, it would stall for seconds.
 */
import { copyFile, readFile, stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../core/logger.ts';

/**
 * The worker's code, plain JavaScript (no loader needed): for each request, reads `from`, parses it, and when it is
 * whole writes it to `to` (through a temporary file and a rename); answers whether it copied, or the error's code.
 */
const CHECK_AND_COPY = `
const { parentPort } = require('node:worker_threads');
const { readFile, writeFile, rename } = require('node:fs/promises');
parentPort.on('message', async ({ id, from, to }) => {
  let text;
  try {
    text = await readFile(from, 'utf8');
    JSON.parse(text);
  } catch (err) {
    parentPort.postMessage({ id, copied: false, code: err instanceof SyntaxError ? null : (err.code ?? 'ERROR'), message: String(err && err.message) });
    return;
  }
  try {
    await writeFile(to + '.tmp', text);
    await rename(to + '.tmp', to);
    parentPort.postMessage({ id, copied: true });
  } catch (err) {
    parentPort.postMessage({ id, copied: false, code: err.code ?? 'ERROR', message: String(err && err.message) });
  }
});`;

interface CopyAnswer {
  id: number;
  copied: boolean;
  /** Set when the copy failed for another reason than a cut-short file (null: it was not whole JSON). */
  code?: string | null;
  message?: string;
}

/** A worker that checks and copies one file at a time, started on first use; unref'd, so it never keeps the process alive. */
function copier(): { copy(from: string, to: string): Promise<CopyAnswer>; stop(): void } {
  let worker: Worker | null = null;
  let next = 0;
  const waiting = new Map<number, (answer: CopyAnswer) => void>();
  // Everyone waiting is answered: `code` null when the worker was stopped on purpose (nothing to warn about).
  const settleAll = (code: string | null, message: string) => {
    for (const [id, settle] of waiting) settle({ id, copied: false, code, message });
    waiting.clear();
  };
  return {
    copy(from, to) {
      if (!worker) {
        const started = new Worker(CHECK_AND_COPY, { eval: true });
        started.unref();
        started.on('message', (answer: CopyAnswer) => {
          waiting.get(answer.id)?.(answer);
          waiting.delete(answer.id);
        });
        // A worker that died is replaced on the next copy.
        const lost = (reason: string) => {
          if (worker !== started) return;
          worker = null;
          settleAll('WORKER', reason);
        };
        started.on('error', (err) => lost(String(err)));
        started.on('exit', () => lost('the state backup worker exited'));
        worker = started;
      }
      const id = ++next;
      const answered = new Promise<CopyAnswer>((resolve) => waiting.set(id, resolve));
      worker.postMessage({ id, from, to });
      return answered;
    },
    stop() {
      const stopping = worker;
      worker = null;
      settleAll(null, 'stopped');
      void stopping?.terminate();
    },
  };
}

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
  const worker = copier();
  let lastCopied = 0;
  let running: Promise<boolean> | null = null;
  const runOnce = (): Promise<boolean> => {
    running ??= (async () => {
      try {
        const changed = (await stat(stateFile)).mtimeMs;
        if (changed === lastCopied) return false;
        const answer = await worker.copy(stateFile, backup);
        if (!answer.copied) {
          // Not whole JSON: mid-write, and the next tick sees it whole.
          if (answer.code && answer.code !== 'ENOENT') opts.log.warn({ code: answer.code, reason: answer.message }, 'chain: the state backup failed; it retries on the next tick');
          return false;
        }
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
  return {
    runOnce,
    stop: () => {
      clearInterval(timer);
      worker.stop();
    },
  };
}

/** Puts the last good copy in place of an unreadable state file; resolves whether there was one. */
export async function restoreStateBackup(stateFile: string): Promise<boolean> {
  const backup = backupPathOf(stateFile);
  if ((await isComplete(backup)) === null) return false;
  await copyFile(backup, stateFile);
  return true;
}
