// What every bench shares: whole-number knobs from the environment, a shutdown scope that runs its cleanups
// (last registered first) at the end or on Ctrl-C, the bare-Fastify anchor the HTTP benches compare against, and
// the standalone entry point of each bench.
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';

/** A whole-number environment knob in min..max, or `fallback` when unset; anything else throws. */
export function intFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^[0-9]+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw new Error(`bench: ${name} must be a whole number from ${min} to ${max} (got '${raw}')`);
  }
  return Number(raw);
}

/** Runs `body` with a cleanup list; the cleanups run after it (or on SIGINT, then the process exits 130). */
export async function withCleanups<T>(log: (line: string) => void, body: (cleanups: (() => Promise<void>)[]) => Promise<T>): Promise<T> {
  const cleanups: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err: unknown) => log(`bench: shutdown step failed: ${(err as Error).message}`));
    cleanups.length = 0;
  };
  const onSigint = () => {
    log('bench: interrupted, shutting down');
    void closeAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSigint);
  cleanups.push(async () => void process.removeListener('SIGINT', onSigint));
  try {
    return await body(cleanups);
  } finally {
    await closeAll();
  }
}

/**
 * The anchor of an HTTP bench: a bare Fastify route on this process answering `body` verbatim (what the measured
 * route answers), listening on `host`; closed with the scope. Returns its port.
 */
export async function listenAnchor(route: { method: 'GET' | 'POST'; path: string; status: number; body: string }, host: string, cleanups: (() => Promise<void>)[]): Promise<number> {
  const app = Fastify({ logger: false });
  app.route({ method: route.method, url: route.path, handler: async (_req, reply) => reply.code(route.status).type('application/json; charset=utf-8').send(route.body) });
  await app.listen({ port: 0, host });
  cleanups.push(() => app.close());
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('bench: the anchor is not listening on a TCP port');
  return address.port;
}

/** Whether this process compiles its TypeScript as `svc start` does (bench/compile.mjs), not through tsx. */
export const compiledAsService = (globalThis as Record<symbol, unknown>)[Symbol.for('svc.bench.compiled')] === true;

/**
 * Runs `main` when `moduleUrl` is the script node was started with (`node --import ./bench/compile.mjs
 * bench/<name>.ts`), not when the module is imported by bench/run.ts. Exit code 0, or 1 with the error on stderr.
 */
export function runIfMain(moduleUrl: string, main: (log: (line: string) => void) => Promise<void>): void {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  if (!compiledAsService) {
    console.log('bench: not started with --import ./bench/compile.mjs: the code runs compiled unlike `svc start` (tsx keeps function names), slower by about a tenth on the order path');
  }
  main((line) => console.log(line)).then(
    () => {
      process.exitCode = 0;
    },
    (err: unknown) => {
      console.error(err instanceof Error ? (err.stack ?? err.message) : err);
      process.exitCode = 1;
    },
  );
}
