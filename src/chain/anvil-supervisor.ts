/**
 * Keeps the embedded anvil running: when it exits without being asked to (a crash, an OOM kill), it is started
 * again on the same port and state file, with backoff, and `onUp` reconciles what the restart may have lost (the
 * state file is dumped once a second). Meanwhile the node does not answer, so chain reads and writes answer 503
 * and health reports the chain down. stop() ends the supervision with the process: a deliberate stop is not restarted.
 */
import type { Logger } from '../core/logger.ts';
import type { AnvilHandle } from './anvil.ts';

/** Waits between restart attempts, then the last one repeats. Milliseconds. */
export const RESTART_BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000] as const;

export interface SupervisorHooks {
  log: Logger;
  /** Called when the node exits unasked, before the restart (liveness goes down here). */
  onDown?: () => void;
  /** Called after every restart, before the node is reported up again (the relayer reconciles here). */
  onUp?: (handle: AnvilHandle) => Promise<void>;
}

/** The supervised node: the same shape as one process, always naming the current one. */
export function superviseAnvil(first: AnvilHandle, restart: () => Promise<AnvilHandle>, hooks: SupervisorHooks): AnvilHandle {
  let current = first;
  let stopping = false;
  let stopped: Promise<void> | undefined;

  const watch = (handle: AnvilHandle): void => {
    void handle.exited.then((how) => {
      if (stopping || handle !== current) return;
      hooks.onDown?.();
      hooks.log.warn({ pid: handle.pid, code: how.code, signal: how.signal }, 'chain: anvil exited; restarting it on the same state');
      void bringBack(0);
    });
  };

  const backoff = (attempt: number): number => RESTART_BACKOFF_MS[Math.min(attempt, RESTART_BACKOFF_MS.length - 1)]!;

  const bringBack = async (attempt: number): Promise<void> => {
    if (stopping) return;
    let next: AnvilHandle;
    try {
      next = await restart();
    } catch (err) {
      hooks.log.error({ err, attempt: attempt + 1, retryInMs: backoff(attempt) }, 'chain: anvil restart failed');
      setTimeout(() => void bringBack(attempt + 1), backoff(attempt)).unref();
      return;
    }
    if (stopping) {
      await next.stop();
      return;
    }
    current = next;
    watch(next);
    await reconcile(next, 0);
  };

  // A failed reconciliation is retried against the same node; it never restarts a node that runs.
  const reconcile = async (handle: AnvilHandle, attempt: number): Promise<void> => {
    if (stopping || handle !== current) return;
    try {
      await hooks.onUp?.(handle);
      hooks.log.warn({ pid: handle.pid }, 'chain: anvil is back');
    } catch (err) {
      hooks.log.error({ err, attempt: attempt + 1, retryInMs: backoff(attempt) }, 'chain: reconciling after the anvil restart failed');
      setTimeout(() => void reconcile(handle, attempt + 1), backoff(attempt)).unref();
    }
  };

  watch(first);
  return {
    get rpcUrl() {
      return current.rpcUrl;
    },
    get port() {
      return current.port;
    },
    get pid() {
      return current.pid;
    },
    get chainId() {
      return current.chainId;
    },
    get exited() {
      return current.exited;
    },
    stop: () => {
      stopping = true;
      stopped ??= current.stop();
      return stopped;
    },
  };
}
