// Supervises a local anvil node (the bundled Linux binary) for dev, tests and the self-hosted local chain.
// We spawn the binary itself so `pid` is anvil's and signals reach it directly (the npm wrapper's PID is not).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import type { Hex } from 'viem';
import { INSTALL_ROOT } from '../core/install-root.ts';
import { forgetAnvil, recordAnvil, stopOrphanedAnvil } from './anvil-pidfile.ts';
import { listensOn } from './listeners.ts';

export interface StartAnvilOptions {
  /** Default 8453 (Base), so local runs use the production chain id in signatures. */
  chainId?: number;
  /** Default 0: pick a free port. */
  port?: number;
  /** Loaded at start and dumped on exit and every second, so a crash loses at most ~1 s. */
  stateFile?: string;
  /** Seconds between blocks; omitted = mine on every transaction. */
  blockTime?: number;
  /** Receives anvil's output lines; when set anvil runs without --silent. */
  log?: (line: string) => void;
  /** Record anvil here; at start, stop an anvil a dead predecessor left on the same state file. */
  pidFile?: string;
  /** Told when such an orphan is being stopped. */
  onOrphan?: (anvilPid: number, ownerPid: number) => void;
  /** Where a port comes from when none is fixed (default freePort); tests hand it a taken one to race it. */
  freePort?: () => Promise<number>;
}

export interface AnvilHandle {
  rpcUrl: string;
  port: number;
  pid: number;
  chainId: number;
  /** SIGTERM (anvil dumps --state on it), SIGKILL after 5 s; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
  /** Resolves when the process exits, for any reason (stop(), a crash, a kill). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** anvil's account 0 for the default "test test … junk" mnemonic. Public knowledge: local chains only. */
export const ANVIL_DEV_PRIVATE_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

// Hardcoded because viem's mnemonicToAccount exposes no private key; these are anvil's documented defaults.
const DEV_KEYS: readonly Hex[] = [
  ANVIL_DEV_PRIVATE_KEY,
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
];

/** The first 10 default dev private keys, account 0 first. */
export function anvilDevAccounts(): Hex[] {
  return [...DEV_KEYS];
}

const READY_DEADLINE_MS = 10_000;
const KILL_AFTER_MS = 5_000;
const STDERR_TAIL_CHARS = 2_000;
// A port picked by us can be taken before anvil binds it; retry that race a few times.
const PORT_RACE_RETRIES = 3;

const SETPRIV = '/usr/bin/setpriv';

function anvilBinary(): string {
  const require = createRequire(join(INSTALL_ROOT, 'package.json'));
  return join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');
}

// One process-wide 'exit' hook for all live nodes, so many starts don't pile up listeners.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous; SIGTERM still lets anvil dump --state after we are gone.
  // Note: a parent killed by a signal it does not handle skips 'exit'; the app's signal handler must call stop().
  process.on('exit', () => {
    for (const c of live) c.kill('SIGTERM');
  });
}

class AnvilStartError extends Error {
  constructor(
    message: string,
    readonly portInUse: boolean,
  ) {
    super(message);
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not determine a free port'));
        return;
      }
      server.close(() => resolvePort(address.port));
    });
  });
}

/** Another node already on a fixed port would answer our readiness poll and be mistaken for ours; refuse early. */
async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolveFree, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(new AnvilStartError(err.code === 'EADDRINUSE' ? `port ${port} on 127.0.0.1 is already in use` : `cannot bind port ${port}: ${err.message}`, false));
    });
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree()));
  });
}

async function rpcCall(rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error) throw new Error(`anvil ${method}: ${body.error.message ?? 'error'}`);
  return body.result;
}

/**
 * A chain loaded from its state file starts its clock at the wall clock, which is behind the last block when time was
 * moved forward (evm_increaseTime in demos and tests): block time would go backwards, and a deadline the latest block
 * has passed would not have passed for the next one. The clock is set to just after the last block instead.
 */
async function keepTimeMonotonic(rpcUrl: string): Promise<void> {
  const latest = (await rpcCall(rpcUrl, 'eth_getBlockByNumber', ['latest', false])) as { timestamp: string } | null;
  const last = latest ? Number.parseInt(latest.timestamp, 16) : 0;
  if (last >= Math.floor(Date.now() / 1000)) await rpcCall(rpcUrl, 'anvil_setTime', [last + 1]);
}

async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { result?: unknown };
    return typeof body.result === 'string' ? Number.parseInt(body.result, 16) : undefined;
  } catch {
    return undefined; // not listening yet
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function startOnce(opts: StartAnvilOptions, chainId: number, port: number): Promise<AnvilHandle> {
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId)];
  if (!opts.log) args.push('--silent');
  if (opts.stateFile !== undefined) {
    const stateFile = resolve(opts.stateFile);
    // anvil silently skips the dump when the folder is missing, which would lose all state.
    mkdirSync(dirname(stateFile), { recursive: true });
    // Historical states too: after a restart the embedded chain still answers reads at old blocks, as an
    // archive node does (the indexer and commit-deploy read market state at the creation block).
    args.push('--state', stateFile, '--state-interval', '1', '--preserve-historical-states');
  }
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));

  // setpriv execs anvil in place (same pid) with a parent-death signal, so the kernel stops anvil
  // (SIGTERM, which dumps its state) even when svc itself is SIGKILLed.
  const child = existsSync(SETPRIV)
    ? spawn(SETPRIV, ['--pdeathsig', 'TERM', '--', anvilBinary(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);

  let stderrTail = '';
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitPromise = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      r(exited);
    });
  });
  // 'close' comes once the process has exited and its pipes are drained: its last words on stderr are read by then.
  const closed = new Promise<void>((r) => child.once('close', () => r()));
  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
  });

  // Both pipes must always be drained or anvil blocks once the pipe buffer fills.
  const pipeLines = (stream: NodeJS.ReadableStream, isStderr: boolean) => {
    let partial = '';
    const emit = (line: string) => {
      if (opts.log && line.trim() !== '') opts.log(line);
    };
    stream.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (isStderr) stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS);
      if (!opts.log) return;
      partial += text;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      lines.forEach(emit);
    });
    stream.on('end', () => emit(partial));
  };
  pipeLines(child.stdout, false);
  pipeLines(child.stderr, true);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    if (stopping) return stopping;
    stopping = (async () => {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
      await exitPromise;
      clearTimeout(timer);
    })();
    return stopping;
  };

  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_DEADLINE_MS;
  for (;;) {
    if (spawnError) throw new AnvilStartError(`anvil failed to spawn: ${spawnError.message}`, false);
    if (exited) {
      // 'exit' can come before the last of stderr ("Address already in use"), which decides whether to retry; a pipe
      // held open elsewhere must not hold the start, hence the bound.
      await Promise.race([closed, sleep(1_000)]);
      const tail = stderrTail.trim();
      throw new AnvilStartError(
        `anvil exited before becoming ready (code ${exited.code ?? 'null'}, signal ${exited.signal ?? 'none'})${tail ? `: ${tail}` : ''}`,
        /address already in use/i.test(tail),
      );
    }
    const answered = await rpcChainId(rpcUrl);
    if (answered !== undefined) {
      // Another process took the port between freePort() and our spawn (another test worker's anvil, say): its node
      // answers while ours is still starting, and ours will exit with "address in use". Not ours: a port race.
      if (exited !== undefined || (child.pid !== undefined && listensOn(child.pid, port) === false)) {
        await stop();
        throw new AnvilStartError(`the node answering on ${rpcUrl} is not the anvil just started (pid ${child.pid}): another process holds the port`, true);
      }
      if (answered !== chainId) {
        await stop();
        throw new AnvilStartError(`anvil on ${rpcUrl} reports chain id ${answered}, expected ${chainId}`, false);
      }
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      const tail = stderrTail.trim();
      throw new AnvilStartError(`anvil did not answer eth_chainId on ${rpcUrl} within ${READY_DEADLINE_MS} ms${tail ? `: ${tail}` : ''}`, false);
    }
    await sleep(50);
  }

  if (child.pid === undefined) throw new AnvilStartError('anvil started without a pid', false);
  if (opts.stateFile !== undefined) await keepTimeMonotonic(rpcUrl);
  return { rpcUrl, port, pid: child.pid, chainId, stop, exited: exitPromise };
}

/** Starts anvil and resolves once it answers eth_chainId with the requested chain id. */
export async function startAnvil(opts: StartAnvilOptions = {}): Promise<AnvilHandle> {
  if (opts.pidFile === undefined) return startOnFreePort(opts);
  const pidFile = opts.pidFile;
  if (opts.stateFile !== undefined) await stopOrphanedAnvil(pidFile, opts.stateFile, opts.onOrphan ?? (() => undefined));
  const handle = await startOnFreePort(opts);
  const line = await recordAnvil(pidFile, handle.pid);
  return {
    ...handle,
    stop: async () => {
      await handle.stop();
      await forgetAnvil(pidFile, line);
    },
  };
}

async function startOnFreePort(opts: StartAnvilOptions): Promise<AnvilHandle> {
  const chainId = opts.chainId ?? 8453;
  const fixedPort = opts.port ?? 0;
  for (let attempt = 0; ; attempt++) {
    if (fixedPort !== 0) await assertPortFree(fixedPort);
    const port = fixedPort !== 0 ? fixedPort : await (opts.freePort ?? freePort)();
    try {
      return await startOnce(opts, chainId, port);
    } catch (err) {
      const retry = fixedPort === 0 && err instanceof AnvilStartError && err.portInUse && attempt < PORT_RACE_RETRIES;
      if (!retry) throw err;
    }
  }
}
