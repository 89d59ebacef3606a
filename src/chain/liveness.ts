/**
 * Whether the chain node can be relied on right now. Down while the node does not answer (a probe of its head
 * fails, or the embedded anvil exited) and while svc reconciles with it after it came back; up once the
 * reconciliation finished. Writes that need the chain to settle what they accept ask it first and are refused with
 * 503 while it is down (docs/chain.md "Liveness").
 */
import type { Logger } from '../core/logger.ts';

export interface ChainLivenessState {
  up: boolean;
  /** Why it is down (null when up). */
  reason: string | null;
  /** When it last changed, ms since the epoch. */
  since: number;
}

export interface ChainLiveness {
  state(): ChainLivenessState;
  /** Marks the node down; repeated calls keep the first reason and time. */
  down(reason: string): void;
  /** Marks it up again (after whatever reconciliation its return needed). */
  up(): void;
  /**
   * Probes the node every `intervalMs` (`probe` rejects when it does not answer). On a failure the node is down; on
   * the first success after that `onBack` runs (reconciliation) and the node is up once it resolves.
   */
  watch(probe: () => Promise<unknown>, intervalMs: number, onBack: () => Promise<void>): void;
  /** One probe as watch() runs it every interval; resolves once its reconciliation (if any) finished. */
  probeOnce(probe: () => Promise<unknown>, onBack: () => Promise<void>): Promise<void>;
  stop(): void;
}

export function createChainLiveness(log: Logger, now: () => number = Date.now): ChainLiveness {
  let current: ChainLivenessState = { up: true, reason: null, since: now() };
  let timer: NodeJS.Timeout | undefined;
  let probing = false;

  const down = (reason: string): void => {
    if (!current.up) return;
    current = { up: false, reason, since: now() };
    log.warn({ reason }, 'chain: node down; chain-dependent writes answer 503 until it is back and reconciled');
  };
  const up = (): void => {
    if (current.up) return;
    log.warn({ downForMs: now() - current.since }, 'chain: node up and reconciled; chain-dependent writes accepted again');
    current = { up: true, reason: null, since: now() };
  };

  // A probe that overlaps the previous one (a slow node) is skipped.
  const probeOnce = async (probe: () => Promise<unknown>, onBack: () => Promise<void>): Promise<void> => {
    if (probing) return;
    probing = true;
    try {
      try {
        await probe();
      } catch (err) {
        down(`the node does not answer: ${String((err as Error).message ?? err).split('\n')[0]}`);
        return;
      }
      if (current.up) return;
      try {
        await onBack();
        up();
      } catch (err) {
        log.error({ err }, 'chain: reconciling with the node after it came back failed; retrying on the next probe');
      }
    } finally {
      probing = false;
    }
  };

  return {
    state: () => current,
    down,
    up,
    probeOnce,
    watch(probe, intervalMs, onBack) {
      timer = setInterval(() => void probeOnce(probe, onBack), intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
