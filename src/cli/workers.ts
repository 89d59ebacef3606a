/**
 * `svc start --workers N` (docs/operations.md "Several processes"): this process supervises N `svc start` workers
 * (node:cluster) that share its port; the cluster (src/services/cluster/) elects the leader among them, spreads the
 * order books, and forwards calls to a worker's own port on 127.0.0.1. The first worker starts alone (migrations,
 * deployments), the others after it is ready. A worker that dies is replaced; three in a row that die before they are
 * ready stop everything. SIGINT or SIGTERM stops the workers cleanly, then this process.
 */
import cluster, { type Worker } from 'node:cluster';

export { cluster };
import type { Config } from '../config.ts';

/** What a worker sends its supervisor once it serves. */
export const WORKER_READY = 'svc:worker-ready';
/** Workers at most. */
export const MAX_WORKERS = 64;
const RESTART_DELAY_MS = 1_000;
const FAILED_STARTS_TO_GIVE_UP = 3;
const STOP_GRACE_MS = 30_000;

/** Why this configuration cannot run workers, or null. */
export function workersRefusal(config: Config): string | null {
  if (config.database.kind !== 'postgres' || config.chain.mode !== 'external') {
    return '--workers needs DATABASE_URL and CHAIN_RPC_URL: the workers share one PostgreSQL database and one node (the embedded PGlite and anvil are one process’s; docs/operations.md)';
  }
  if (config.role !== 'all') return '--workers runs workers that may all lead (SVC_ROLE=all)';
  return null;
}

/** Runs until a signal; answers the exit code. */
export async function superviseWorkers(config: Config, count: number, say: (line: string) => void): Promise<number> {
  const began = Date.now();
  const live = new Set<Worker>();
  let stopping = false;
  let failedStarts = 0;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    const exits = [...live].map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
    for (const w of live) w.process.kill('SIGTERM');
    const late = setTimeout(() => {
      for (const w of live) w.process.kill('SIGKILL');
    }, STOP_GRACE_MS);
    await Promise.all(exits);
    clearTimeout(late);
    say(code === 0 ? 'workers stopped cleanly' : 'workers stopped');
    finish(code);
  };

  /** Starts a worker; resolves true once it serves, false if it died first. */
  const fork = (): Promise<boolean> =>
    new Promise((resolve) => {
      const worker = cluster.fork();
      live.add(worker);
      let ready = false;
      worker.on('message', (message: unknown) => {
        if (message !== WORKER_READY) return;
        ready = true;
        failedStarts = 0;
        resolve(true);
      });
      worker.on('exit', (code, signal) => {
        live.delete(worker);
        if (!ready) resolve(false);
        if (stopping) return;
        if (!ready) failedStarts++;
        if (failedStarts >= FAILED_STARTS_TO_GIVE_UP) {
          say(`${FAILED_STARTS_TO_GIVE_UP} workers in a row stopped before they were ready (the last: ${signal ?? `exit code ${code}`}): stopping`);
          void stopAll(1);
          return;
        }
        say(`worker ${worker.process.pid} stopped (${signal ?? `exit code ${code}`})${ready ? '' : ' before it was ready'}: starting another in ${RESTART_DELAY_MS / 1000} s`);
        setTimeout(() => void (stopping ? undefined : fork()), RESTART_DELAY_MS);
      });
    });

  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  cluster.setupPrimary({ args: ['start'] });
  say(`starting ${count} worker${count === 1 ? '' : 's'} on port ${config.port}: the first alone (migrations, deployments), then the others`);
  if (await fork()) {
    const started = await Promise.all(Array.from({ length: count - 1 }, () => fork()));
    if (!stopping) say(`ready in ${((Date.now() - began) / 1000).toFixed(1)} s: ${started.filter(Boolean).length + 1} of ${count} workers serve http://${config.host}:${config.port}`);
  } else if (!stopping) {
    say('the first worker stopped before it was ready (its lines above say why): stopping');
    await stopAll(1);
  }
  return finished;
}
