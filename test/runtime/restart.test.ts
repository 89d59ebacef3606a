// The real `svc start` process, stopped and started again on the same data folder: a clean SIGINT,
// a restart that reuses every deployment, key and the operator key, and a SIGKILLed run whose
// orphaned anvil the next start takes over. On PostgreSQL the runs share one fresh database.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/harness.ts';
import { accepts, cmdlineOf, freePort, linesOf, listenersOn, runCli, runSvc, spawnSvc, type SvcProcess } from '../cli/svc-process.ts';
import { waitFor } from '../support/wait.ts';
import { processFolder, type ProcessFolder } from '../support/process-folder.ts';

interface Deployment {
  name: string;
  address: string;
  deploymentTxHash: string;
  fromBlock: number;
}

let folder: ProcessFolder;
let dataDir: string;
let port: number;
let anvilPort: number;
let env: Record<string, string>;
let base: string;
const running = new Set<SvcProcess>();

beforeAll(async () => {
  folder = await processFolder('svc-restart-');
  ({ dataDir, port, anvilPort, base } = folder);
  env = { ...folder.env, LOG_LEVEL: 'warn' };
});

afterAll(async () => {
  for (const svc of running) {
    svc.child.kill('SIGKILL');
    await svc.exited;
  }
  const leaked = await folder.remove();
  if (leaked.length > 0) console.warn(`restart test: killed anvil left on port ${anvilPort}: pid(s) ${leaked.join(', ')}`);
});

async function start(): Promise<{ svc: SvcProcess; readyMs: number }> {
  const svc = spawnSvc(['start'], env);
  running.add(svc);
  void svc.exited.then(() => running.delete(svc));
  await svc.waitForLine(/^svc: ready in /, 60_000);
  const readyMs = Date.now() - svc.spawnedAt;
  await svc.waitForLine(/^svc: {3}database /, 5_000); // printed with the rest of the banner, after the URLs
  return { svc, readyMs };
}

async function stopWith(svc: SvcProcess, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  svc.child.kill(signal);
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`svc did not exit within 20 s of ${signal}; output:\n${svc.output()}`)), 20_000),
  );
  return Promise.race([svc.exited, timeout]);
}

async function getJson(url: string, key?: string): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function health(): Promise<{ headBlock: bigint }> {
  const res = await getJson(`${base}/api/agent/v1/health`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status).toBe('ok');
  expect(res.body.database).toMatchObject({ ok: true, kind: onPostgres ? 'postgres' : 'pglite' });
  expect(res.body.chain).toMatchObject({ ok: true, chainId: 8453 });
  expect(res.body.chain.headBlock).toMatch(/^[0-9]+$/);
  return { headBlock: BigInt(res.body.chain.headBlock) };
}

async function deployments(key: string): Promise<Record<string, Deployment>> {
  const res = await getJson(`${base}/api/agent/v1/discover/contracts`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.chains).toHaveLength(1);
  const list = res.body.chains[0].deployments as Deployment[];
  const byName = Object.fromEntries(list.map((d) => [d.name, d]));
  for (const name of ['ParticipationToken', 'TestUSDC']) {
    expect(byName[name], `deployment ${name} in ${JSON.stringify(list)}`).toBeDefined();
    expect(byName[name]!.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(byName[name]!.deploymentTxHash).toMatch(/^0x[0-9a-f]{64}$/);
  }
  return byName;
}

const operatorKeyFile = () => path.join(dataDir, 'operator.key');
const stateFile = () => path.join(dataDir, 'chain', 'state.json');

describe('svc start / stop / restart on one data folder', () => {
  let apiKey: string;
  let first: { deployments: Record<string, Deployment>; headBlock: bigint; operatorKey: string };

  it('issues a key with the CLI before the first start', async () => {
    const res = await runSvc(['keys', 'create', '--tier', 'read-only'], env);
    expect(res.code, res.stderr).toBe(0);
    const line = linesOf(res.stdout).find((l) => l.startsWith('api key: '));
    expect(line).toBeDefined();
    apiKey = line!.slice('api key: '.length).trim();
    expect(apiKey).toMatch(/^svc_test_/);
  });

  it('first start: ready, prints its URLs, serves health and the deployments; SIGINT stops it cleanly', async () => {
    const { svc, readyMs } = await start();
    console.log(`time-to-ready, first start (spawn to "ready", ${onPostgres ? 'PostgreSQL' : 'PGlite'}): ${readyMs} ms; svc says: ${svc.stdout().match(/ready in ([0-9.]+ s)/)?.[1]}`);

    const out = svc.stdout();
    expect(out).toContain(`svc:   agent REST     ${base}/api/agent/v1 `);
    expect(out).toContain(`svc:   consumer REST  ${base}/api/v1 `);
    expect(out).toContain(`svc:   MCP            ${base}/mcp `);
    expect(out).toContain(`svc:   health         ${base}/api/agent/v1/health`);
    expect(out).toContain(`http://127.0.0.1:${anvilPort} (chain id 8453, embedded anvil)`);

    const { headBlock } = await health();
    const deployed = await deployments(apiKey);
    expect(await accepts(anvilPort)).toBe(true);

    const keyStat = statSync(operatorKeyFile());
    expect(keyStat.mode & 0o777).toBe(0o600);
    first = { deployments: deployed, headBlock, operatorKey: readFileSync(operatorKeyFile(), 'utf8') };
    expect(first.operatorKey.trim()).toMatch(/^0x[0-9a-f]{64}$/i);

    if (!onPostgres) {
      // PGlite's folder is locked while svc runs: an operator command runs inside it, over its operator channel.
      const busy = await runSvc(['keys', 'create', '--tier', 'read-only'], env);
      expect([busy.code, busy.stderr]).toEqual([0, '']);
      expect(busy.stdout).toMatch(/svc_test_/);
      // A second svc on the same folder is refused in one line, before it touches the chain.
      const second = await runCli(['start'], { ...env, PORT: String(await freePort()), ANVIL_PORT: String(await freePort()) });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(new RegExp(`^svc: database folder .*/pg is in use by process ${svc.pid} `));
      expect(second.stdout).not.toContain('starting anvil');
    }

    const anvilPids = listenersOn(anvilPort);
    expect(anvilPids).toHaveLength(1);
    const exit = await stopWith(svc, 'SIGINT');
    expect(exit, svc.output()).toEqual({ code: 0, signal: null });
    expect(svc.stdout()).toContain('svc: SIGINT received: stopping');
    expect(svc.stdout()).toContain('svc: stopped cleanly');
    expect(await accepts(anvilPort)).toBe(false);
    expect(cmdlineOf(anvilPids[0]!)?.some((a) => a.includes('anvil')) ?? false).toBe(false);
    expect(await accepts(port)).toBe(false);
    expect(existsSync(stateFile())).toBe(true);
    expect(statSync(stateFile()).size).toBeGreaterThan(0);
    if (!onPostgres) expect(existsSync(path.join(dataDir, 'pg', '.svc.lock'))).toBe(false);
  });

  it('restart: same deployments (never redeployed), same key, chain kept, operator key unchanged', async () => {
    const { svc, readyMs } = await start();
    console.log(`time-to-ready, restart after SIGINT: ${readyMs} ms`);
    expect(svc.stdout()).not.toContain('funded operator');
    expect(svc.output()).not.toContain('deployer: deploying');

    const again = await deployments(apiKey);
    for (const name of ['ParticipationToken', 'TestUSDC']) {
      expect(again[name]!.address).toBe(first.deployments[name]!.address);
      expect(again[name]!.deploymentTxHash).toBe(first.deployments[name]!.deploymentTxHash);
      expect(again[name]!.fromBlock).toBe(first.deployments[name]!.fromBlock);
    }
    const { headBlock } = await health();
    expect(headBlock >= first.headBlock, `head ${headBlock} after restart, ${first.headBlock} before`).toBe(true);
    expect(statSync(operatorKeyFile()).mode & 0o777).toBe(0o600);
    expect(readFileSync(operatorKeyFile(), 'utf8')).toBe(first.operatorKey);

    const exit = await stopWith(svc, 'SIGTERM');
    expect(exit, svc.output()).toEqual({ code: 0, signal: null });
    expect(svc.stdout()).toContain('svc: stopped cleanly');
    expect(await accepts(anvilPort)).toBe(false);
  });

  it('after a SIGKILL anvil stops with svc (or is taken over), and the next start takes the stale lock and comes up with the same chain', async () => {
    const { svc } = await start();
    const anvilPids = listenersOn(anvilPort);
    expect(anvilPids).toHaveLength(1);
    // Let anvil's 1 s state dump run at least once under this run: wait for the state file to be written again.
    const dumpedAt = statSync(stateFile()).mtimeMs;
    await waitFor(() => statSync(stateFile()).mtimeMs > dumpedAt, { what: `anvil to dump its state to ${stateFile()} again` });
    const exit = await stopWith(svc, 'SIGKILL');
    expect(exit.signal).toBe('SIGKILL');

    // With setpriv, anvil gets a parent-death SIGTERM and stops by itself (dumping its state); without
    // it, anvil stays up re-parented and the next start must take it over. Wait for anvil's own exit
    // before deciding, so the check does not race a shutdown in progress.
    const diedWithSvc = await waitFor(async () => !(await accepts(anvilPort)), { timeoutMs: 10_000, what: `anvil on port ${anvilPort} to stop with svc` }).then(
      () => true,
      () => false,
    );
    if (existsSync('/usr/bin/setpriv')) expect(diedWithSvc, 'anvil should stop when svc is SIGKILLed').toBe(true);
    const orphaned = !diedWithSvc;
    console.log(`after SIGKILL of svc: anvil (pid ${anvilPids[0]}) still accepting on ${anvilPort}: ${orphaned}`);

    const { svc: next, readyMs } = await start();
    console.log(`time-to-ready, start after SIGKILL: ${readyMs} ms`);
    if (orphaned) expect(next.stdout()).toMatch(new RegExp(`chain: stopping anvil \\(pid ${anvilPids[0]}\\) left running by a previous svc \\(pid ${svc.pid}\\)`));
    expect(next.output()).not.toContain('deployer: deploying');
    const again = await deployments(apiKey);
    for (const name of ['ParticipationToken', 'TestUSDC']) {
      expect(again[name]!.address).toBe(first.deployments[name]!.address);
      expect(again[name]!.deploymentTxHash).toBe(first.deployments[name]!.deploymentTxHash);
    }
    const { headBlock } = await health();
    expect(headBlock >= first.headBlock).toBe(true);
    expect(readFileSync(operatorKeyFile(), 'utf8')).toBe(first.operatorKey);
    // The orphan is gone: only the new run's anvil listens.
    expect(listenersOn(anvilPort)).not.toContain(anvilPids[0]);

    const stopped = await stopWith(next, 'SIGINT');
    expect(stopped, next.output()).toEqual({ code: 0, signal: null });
    await waitFor(async () => !(await accepts(anvilPort)), { what: `anvil on port ${anvilPort} to stop` });
  });

  it('a signal during start-up still stops anvil and exits 0', async () => {
    const svc = spawnSvc(['start'], env);
    running.add(svc);
    await svc.waitForLine(/^svc: database: /, 60_000); // the first progress line: start-up has just begun
    const exit = await stopWith(svc, 'SIGTERM');
    expect(exit, svc.output()).toEqual({ code: 0, signal: null });
    expect(svc.stdout()).toContain('svc: SIGTERM received: stopping');
    expect(svc.stdout()).toContain('svc: stopped cleanly');
    expect(svc.stdout()).not.toContain('ready in');
    await waitFor(async () => !(await accepts(anvilPort)), { what: `anvil on port ${anvilPort} to stop` });
    expect(listenersOn(anvilPort)).toEqual([]);
    if (!onPostgres) expect(existsSync(path.join(dataDir, 'pg', '.svc.lock'))).toBe(false);
  });
});
