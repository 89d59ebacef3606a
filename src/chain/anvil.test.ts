// Tests the anvil supervisor against the real binary: readiness, chain id, stop, state persistence, exit cleanup.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ANVIL_DEV_PRIVATE_KEY, anvilDevAccounts, freePort, startAnvil, type AnvilHandle } from './anvil.ts';
import { listensOn } from './listeners.ts';
import { waitFor } from '../../test/support/wait.ts';

const dirs: string[] = [];
const handles: AnvilHandle[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-anvil-'));
  dirs.push(dir);
  return dir;
}

async function start(opts: Parameters<typeof startAnvil>[0] = {}): Promise<AnvilHandle> {
  const h = await startAnvil(opts);
  handles.push(h);
  return h;
}

/** The balance of `account` in anvil's --state dump, or undefined while the file is missing, partly written or without it. */
function dumpedBalance(stateFile: string, account: Address): bigint | undefined {
  if (!existsSync(stateFile)) return undefined;
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { accounts?: Record<string, { balance?: string }> };
  const balance = state.accounts?.[account.toLowerCase()]?.balance;
  return balance === undefined ? undefined : BigInt(balance);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An orphan that exited stays a zombie until init reaps it, and containers' PID 1 may never do so.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function clients(h: AnvilHandle) {
  const chain = { ...foundry, id: h.chainId };
  const account = privateKeyToAccount(ANVIL_DEV_PRIVATE_KEY);
  return {
    pub: createPublicClient({ chain, transport: http(h.rpcUrl) }),
    wallet: createWalletClient({ chain, transport: http(h.rpcUrl), account }),
  };
}

afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop()));
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('startAnvil', () => {
  it('starts on chain 8453 on a free port, answers, and stops', async () => {
    const t0 = Date.now();
    const h = await start();
    const readyMs = Date.now() - t0;
    expect(h.chainId).toBe(8453);
    expect(h.port).toBeGreaterThan(0);
    expect(h.rpcUrl).toBe(`http://127.0.0.1:${h.port}`);
    expect(isAlive(h.pid)).toBe(true);
    expect(readyMs).toBeLessThan(10_000);

    const { pub } = clients(h);
    expect(await pub.getChainId()).toBe(8453);

    await h.stop();
    expect(isAlive(h.pid)).toBe(false);
    const noRetry = createPublicClient({ chain: { ...foundry, id: 8453 }, transport: http(h.rpcUrl, { retryCount: 0 }) });
    await expect(noRetry.getChainId()).rejects.toThrow();
    await h.stop(); // idempotent
  });

  it('honours a custom chain id and two nodes run side by side', async () => {
    const [a, b] = await Promise.all([start({ chainId: 31337 }), start()]);
    expect(a!.port).not.toBe(b!.port);
    expect(await clients(a!).pub.getChainId()).toBe(31337);
    expect(await clients(b!).pub.getChainId()).toBe(8453);
  });

  it('uses a fixed port when it is free', async () => {
    const probe = await start();
    const port = probe.port;
    await probe.stop();
    const h = await start({ port });
    expect(h.port).toBe(port);
    expect(await clients(h).pub.getChainId()).toBe(8453);
  });

  it('does not take another node on the port it picked for its own, and starts on another port (a port race)', async () => {
    // Another worker's anvil bound the port between freePort() and our spawn: it answers our readiness poll first.
    const other = await start();
    let handed = 0;
    const h = await start({ freePort: async () => (handed++ === 0 ? other.port : freePort()) });
    expect(handed).toBe(2);
    expect(h.port).not.toBe(other.port);
    expect(listensOn(h.pid, h.port)).toBe(true);
    expect(listensOn(h.pid, other.port)).toBe(false);
    expect(listensOn(other.pid, other.port)).toBe(true);
    // Ours may exit ("address already in use") and be reaped while the check reads /proc: a process that is gone
    // listens on nothing.
    const gone = spawnSync('true').pid;
    expect(listensOn(gone, other.port)).toBe(false);
  });

  it('starts on another port when the one it picked is taken by something that is not a node (anvil exits: address in use)', async () => {
    // Answers every request 404, so the readiness poll learns nothing from it and sees our anvil exit instead.
    const blocker = createHttpServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as { port: number }).port;
    try {
      let handed = 0;
      const h = await start({ freePort: async () => (handed++ === 0 ? taken : freePort()) });
      expect(handed).toBe(2);
      expect(h.port).not.toBe(taken);
      expect(await clients(h).pub.getChainId()).toBe(8453);
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('refuses a fixed port that is already taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const address = blocker.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    try {
      await expect(startAnvil({ port: address.port })).rejects.toThrow(`port ${address.port} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('fails clearly when the state file is corrupt', async () => {
    const stateFile = join(tempDir(), 'state.json');
    writeFileSync(stateFile, '{not json');
    await expect(startAnvil({ stateFile })).rejects.toThrow(/exited before becoming ready.*failed to parse json file/s);
  });

  it('passes output lines to log when given', async () => {
    const lines: string[] = [];
    const h = await start({ log: (l) => lines.push(l) });
    await clients(h).pub.getBlockNumber();
    await h.stop();
    expect(lines.length).toBeGreaterThan(0);
  });

  it('persists state across a stop and restart with the same state file', async () => {
    const stateFile = join(tempDir(), 'nested', 'state.json'); // parent folder does not exist yet
    const recipient: Address = '0x000000000000000000000000000000000000bEEF';

    const first = await start({ stateFile });
    const { pub, wallet } = clients(first);
    const hash = await wallet.sendTransaction({ to: recipient, value: parseEther('1.5') });
    await pub.waitForTransactionReceipt({ hash });
    // cacheTime 0: viem caches the block number it polled while waiting for the receipt (a stale height flaked here).
    const height = await pub.getBlockNumber({ cacheTime: 0 });
    await first.stop();
    expect(existsSync(stateFile)).toBe(true);

    const second = await start({ stateFile });
    const again = clients(second).pub;
    expect(await again.getBalance({ address: recipient })).toBe(parseEther('1.5'));
    expect(await again.getBlockNumber()).toBe(height);
    expect(await again.getChainId()).toBe(8453);
    // Reads at blocks before the restart still answer (historical states are kept, like an archive node).
    await clients(second).pub.waitForTransactionReceipt({ hash: await clients(second).wallet.sendTransaction({ to: recipient, value: 1n }) });
    expect(await again.getBalance({ address: recipient, blockNumber: height - 1n })).toBe(0n);
    expect(await again.getBalance({ address: recipient, blockNumber: height })).toBe(parseEther('1.5'));
  });

  it('keeps block time from going backwards across a restart after time was moved forward', async () => {
    const stateFile = join(tempDir(), 'state.json');
    const first = await start({ stateFile });
    const rpcOf = async (h: AnvilHandle, method: string, params: unknown[] = []) =>
      (await (await fetch(h.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as { result: unknown };
    await rpcOf(first, 'evm_increaseTime', [86_400]);
    await rpcOf(first, 'evm_mine');
    const last = (await clients(first).pub.getBlock({ blockTag: 'latest' })).timestamp;
    await first.stop();

    const second = await start({ stateFile });
    await rpcOf(second, 'evm_mine');
    expect((await clients(second).pub.getBlock({ blockTag: 'latest' })).timestamp).toBeGreaterThan(last);
  });

  it('keeps state written by --state-interval when anvil is SIGKILLed', async () => {
    const stateFile = join(tempDir(), 'state.json');
    const recipient: Address = '0x000000000000000000000000000000000000cafE';
    const first = await start({ stateFile });
    const { pub, wallet } = clients(first);
    const hash = await wallet.sendTransaction({ to: recipient, value: 7n });
    await pub.waitForTransactionReceipt({ hash });
    // The periodic dump (--state-interval 1) is the only one a SIGKILL leaves: wait until it holds the transfer.
    await waitFor(() => dumpedBalance(stateFile, recipient) === 7n, { what: `anvil's periodic state dump to record the transfer to ${recipient}` });
    process.kill(first.pid, 'SIGKILL');
    await first.stop(); // resolves once the killed process is reaped

    const second = await start({ stateFile });
    expect(await clients(second).pub.getBalance({ address: recipient })).toBe(7n);
  });

  it('kills anvil when the parent process exits without calling stop()', async () => {
    const dir = tempDir();
    const script = join(dir, 'orphan.mts');
    const anvilModule = fileURLToPath(new URL('./anvil.ts', import.meta.url));
    writeFileSync(script, `import { startAnvil } from ${JSON.stringify(anvilModule)};\nconst h = await startAnvil();\nconsole.log(h.pid);\nprocess.exit(0);\n`);
    const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
    const res = spawnSync(tsx, [script], { encoding: 'utf8', timeout: 30_000 });
    expect(res.status, res.stderr).toBe(0);
    const pid = Number(res.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    // SIGTERM was sent synchronously in the 'exit' hook; wait for anvil to act on it.
    await waitFor(() => !isAlive(pid), { what: `the orphaned anvil (pid ${pid}) to exit on the SIGTERM its parent sent` });
  });
});

describe('anvilDevAccounts', () => {
  it('returns the 10 keys whose addresses anvil funds by default, account 0 first', async () => {
    const keys = anvilDevAccounts();
    expect(keys).toHaveLength(10);
    expect(keys[0]).toBe(ANVIL_DEV_PRIVATE_KEY);
    const h = await start();
    // A wallet client without a local account asks the node (eth_accounts).
    const accounts = await createWalletClient({ chain: { ...foundry, id: h.chainId }, transport: http(h.rpcUrl) }).getAddresses();
    expect(keys.map((k: Hex) => privateKeyToAccount(k).address.toLowerCase())).toEqual(accounts.map((a) => a.toLowerCase()));
    keys.push('0x00'); // callers get a copy
    expect(anvilDevAccounts()).toHaveLength(10);
  });
});
