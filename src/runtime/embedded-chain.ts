/**
 * The embedded chain of a runtime (CHAIN_MODE=embedded, docs/chain.md "anvil (embedded mode)"): anvil started on its
 * state file, restarted on the same port and state when it exits (the relayer then puts back what the restart lost),
 * and a whole copy of its state file kept every few seconds.
 */
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { startAnvil, type AnvilHandle } from '../chain/anvil.ts';
import { keepStateBackup, restoreStateBackup } from '../chain/anvil-state-backup.ts';
import { superviseAnvil } from '../chain/anvil-supervisor.ts';
import type { ChainLiveness } from '../chain/liveness.ts';
import type { Config } from '../config.ts';
import type { Logger } from './logger.ts';

/** How often the embedded anvil's state file is copied when it changed and is whole (src/chain/anvil-state-backup.ts). */
const ANVIL_STATE_BACKUP_MS = 3_000;

export interface EmbeddedAnvilDeps {
  log: Logger;
  progress: (line: string) => void;
  /** Test hook: awaited before the supervisor restarts an anvil that exited. */
  beforeRestart?: () => Promise<void>;
  liveness: ChainLiveness;
  /** Puts our chain records back on a restarted node (the relayer, then the ledger). */
  reconcileChain: (say: (line: string) => void) => Promise<void>;
  /** Where the anvil's and the backup's stops go (run in reverse at shutdown). */
  cleanups: (() => Promise<void>)[];
}

export async function startEmbeddedAnvil(config: Config, deps: EmbeddedAnvilDeps): Promise<AnvilHandle> {
  const { log, progress, liveness } = deps;
  await mkdir(path.dirname(config.chain.anvilStateFile), { recursive: true });
  progress(`chain: starting anvil (chain id ${config.chain.id}, state ${config.chain.anvilStateFile})`);
  const anvilOptions = {
    chainId: config.chain.id,
    port: config.chain.anvilPort,
    stateFile: config.chain.anvilStateFile,
    pidFile: path.join(path.dirname(config.chain.anvilStateFile), 'anvil.pid'),
    onOrphan: (anvilPid: number, ownerPid: number) => progress(`chain: stopping anvil (pid ${anvilPid}) left running by a previous svc (pid ${ownerPid}) that did not shut down`),
  };
  const first = await startAnvilOnState(anvilOptions, log);
  // An anvil that dies is started again on the same port and state; the relayer then puts back on chain what the
  // restart lost (its state file is dumped once a second). docs/chain.md "anvil (embedded mode)".
  const restart = async () => {
    await deps.beforeRestart?.();
    return startAnvilOnState({ ...anvilOptions, port: first.port }, log);
  };
  const anvil = superviseAnvil(first, restart, {
    log,
    onDown: () => liveness.down('the embedded anvil exited; restarting it'),
    onUp: async () => {
      await deps.reconcileChain((line) => log.warn(line));
      liveness.up();
    },
  });
  deps.cleanups.push(() => anvil.stop());
  // A whole copy of the state file every few seconds: a start that finds the file cut short starts from it.
  const backup = keepStateBackup(config.chain.anvilStateFile, { intervalMs: ANVIL_STATE_BACKUP_MS, log });
  deps.cleanups.push(async () => backup.stop());
  return anvil;
}

/**
 * Starts the embedded anvil on its state file. anvil writes that file in place, so a kill during a dump can leave it
 * unreadable, and anvil then refuses to start, on every later start too. The unreadable file is kept aside and anvil
 * starts from the last good copy (src/chain/anvil-state-backup.ts: at most a few seconds old), or else on an empty
 * chain; the relayer's reconciliation then replays every operator transaction the database holds that the chain lacks
 * (deployments, wiring, ledger batches), so start-up never bricks on it.
 */
async function startAnvilOnState(opts: Parameters<typeof startAnvil>[0] & { stateFile: string }, log: Logger): Promise<AnvilHandle> {
  try {
    return await startAnvil(opts);
  } catch (err) {
    if (!(err instanceof Error) || !/failed to parse json/i.test(err.message)) throw err;
    const aside = `${opts.stateFile}.unreadable-${Date.now()}`;
    await rename(opts.stateFile, aside);
    const restored = await restoreStateBackup(opts.stateFile);
    log.error(
      { err, keptAs: aside },
      restored
        ? 'chain: the anvil state file is unreadable (killed while it was written); starting from its last good copy and replaying the operator transactions after it'
        : 'chain: the anvil state file is unreadable (killed while it was written) and has no good copy; starting on an empty chain and replaying the operator transactions',
    );
    return startAnvil(opts);
  }
}

