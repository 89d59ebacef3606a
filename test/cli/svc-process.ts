// Drives the real `svc` command (bin/svc.mjs) as a child process, with the Node.js flags `npm start` and `npm run svc`
// give it (bin/node-flags.mjs): one-shot commands, and a running `svc start` whose output can be awaited line by line. Also finds and ends an orphaned anvil by port.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import path from 'node:path';
import { listeningInodes, socketInodesOf } from '../../src/chain/listeners.ts';
import { svc } from '../../src/cli/svc.ts';
import { ENV_VARS } from '../../src/config.ts';
import { SERVICE_NODE_FLAGS } from '../../bin/node-flags.mjs';
import { BASE_ENV } from '../support/shared-chain.ts';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(REPO_ROOT, 'bin', 'svc.mjs');

// Variables svc reads: never inherited from the test process, so each run sees exactly what the test set.
const SVC_VARS = ENV_VARS;

export function svcEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SVC_VARS) delete out[name];
  // The demo seed adds seconds to a first start; the tests that want it ask for it. PGlite's shared buffers as every
  // test server has them (BASE_ENV; docs/testing.md "Process suites").
  return { ...out, SEED_DEMO_MARKETS: 'false', PGLITE_SHARED_BUFFERS_MB: BASE_ENV.PGLITE_SHARED_BUFFERS_MB, ...env };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc <args>` to completion. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, BIN, ...args], { cwd: REPO_ROOT, env: svcEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Runs `svc <args>` inside this process (the same command code as the binary, without a process start of a few
 * seconds), with exactly the variables `env` sets; stdout and stderr are the lines it wrote.
 */
export async function runSvc(args: string[], env: Record<string, string>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await svc(args, { out: (line) => (stdout += `${line}\n`), err: (line) => (stderr += `${line}\n`) }, svcEnv(env));
  return { code, signal: null, stdout, stderr };
}

/** The non-empty lines of a stream's text. */
export const linesOf = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

export interface SvcProcess {
  child: ChildProcess;
  pid: number;
  /** Wall time of the spawn (ms since epoch). */
  spawnedAt: number;
  output(): string;
  stdout(): string;
  /** Resolves with the first stdout line matching `pattern` (already printed or later); rejects with the captured output. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns a long-running `svc <args>` (normally `start`). */
export function spawnSvc(args: string[], env: Record<string, string>): SvcProcess {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, BIN, ...args], { cwd: REPO_ROOT, env: svcEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const spawnedAt = Date.now();
  let stdout = '';
  let all = '';
  const waiters = new Set<() => void>();
  const poke = () => waiters.forEach((w) => w());
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
    all += c.toString('utf8');
    poke();
  });
  child.stderr!.on('data', (c: Buffer) => {
    all += c.toString('utf8');
  });
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
      poke();
    });
  });
  if (child.pid === undefined) throw new Error('svc did not spawn');
  return {
    child,
    pid: child.pid,
    spawnedAt,
    output: () => all,
    stdout: () => stdout,
    exited,
    waitForLine(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = stdout.split('\n').find((l) => pattern.test(l) && stdout.includes(`${l}\n`));
          if (line !== undefined) return finish(() => resolve(line));
          if (exitInfo) {
            return finish(() =>
              reject(new Error(`svc exited (code ${exitInfo!.code}, signal ${exitInfo!.signal}) before printing ${pattern}; output:\n${all}`)),
            );
          }
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`svc printed no line matching ${pattern} within ${timeoutMs} ms; output:\n${all}`))), timeoutMs);
        const finish = (fn: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          fn();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** A TCP port nothing listens on right now. */
export { freePort } from '../../src/chain/anvil.ts';

/** True if something accepts TCP connections on 127.0.0.1:port. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Pids with a socket listening on `port` (Linux /proc; only processes we may inspect). */
export function listenersOn(port: number): number[] {
  const listening = listeningInodes(port);
  if (!listening || listening.size === 0) return [];
  return readdirSync('/proc')
    .filter((entry) => /^[0-9]+$/.test(entry))
    .map(Number)
    .filter((pid) => [...(socketInodesOf(pid) ?? [])].some((inode) => listening.has(inode)));
}

/** The command line of a process, or undefined once it is gone. */
export function cmdlineOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/** SIGKILLs any anvil listening on `port` (an orphan of a SIGKILLed svc); returns the pids it killed. */
export function killAnvilOnPort(port: number): number[] {
  const killed: number[] = [];
  for (const pid of listenersOn(port)) {
    const argv = cmdlineOf(pid);
    if (!argv || !path.basename(argv[0] ?? '').startsWith('anvil')) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // already gone
    }
  }
  return killed;
}

/**
 * Calls `fn` with each complete stdout line the process prints from now on, synchronously as the data arrives (a
 * test can act on a log line before the process prints the next one). Returns a function that stops it.
 */
export function followLines(svc: SvcProcess, fn: (line: string) => void): () => void {
  let rest = '';
  const listener = (chunk: Buffer) => {
    rest += chunk.toString('utf8');
    const lines = rest.split('\n');
    rest = lines.pop()!;
    for (const line of lines) fn(line);
  };
  svc.child.stdout!.on('data', listener);
  return () => svc.child.stdout!.off('data', listener);
}
