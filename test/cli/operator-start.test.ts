// The real `svc start` (a process suite): its banner shows the way in, `svc agents create` and `svc keys create` from
// the real binary work while it runs (on PGlite it holds the folder lock: they go over DATA_DIR/operator.sock), the
// agent's key answers GET /me over HTTP, a SIGKILLed run's socket does not stop the next start, and a clean stop
// removes the socket. On PostgreSQL the runs share one fresh database.
import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runCli, spawnSvc, type SvcProcess } from './svc-process.ts';
import { processFolder, type ProcessFolder } from '../support/process-folder.ts';

let folder: ProcessFolder;
let env: Record<string, string>;
let socketPath: string;
const running = new Set<SvcProcess>();

beforeAll(async () => {
  folder = await processFolder('svc-opstart-');
  env = { ...folder.env, LOG_LEVEL: 'warn' };
  socketPath = path.join(folder.dataDir, 'operator.sock');
});

afterAll(async () => {
  for (const svc of running) {
    svc.child.kill('SIGKILL');
    await svc.exited;
  }
  const leaked = await folder.remove();
  if (leaked.length > 0) console.warn(`operator start test: killed anvil left on port ${folder.anvilPort}: pid(s) ${leaked.join(', ')}`);
});

async function start(): Promise<SvcProcess> {
  const svc = spawnSvc(['start'], env);
  running.add(svc);
  void svc.exited.then(() => running.delete(svc));
  await svc.waitForLine(/^svc: ready in /, 90_000);
  await svc.waitForLine(/^svc: {3}or make one /, 5_000); // the last line of the banner
  return svc;
}

async function me(key: string): Promise<{ status: number; body: { id?: string; name?: string } }> {
  const res = await fetch(`${folder.base}/api/agent/v1/me`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as { id?: string; name?: string } };
}

/** Runs `svc agents create` from the real binary; returns its agent id and key. */
async function createAgent(name: string): Promise<{ agentId: string; key: string }> {
  const res = await runCli(['agents', 'create', '--name', name], env);
  expect(res.stderr, res.stderr).toBe('');
  expect(res.code).toBe(0);
  const field = (label: string) => linesOf(res.stdout).find((l) => l.startsWith(`${label}:`))!.slice(label.length + 1).trim();
  return { agentId: field('agent id'), key: field('api key') };
}

describe('svc start and the operator channel', () => {
  let first: SvcProcess;

  it('prints the way in: how to open registration, and how to make an agent while it runs', async () => {
    first = await start();
    const out = first.stdout();
    expect(out).toContain(`svc:   operator       ${socketPath} (svc keys, agents, comment, market, … run in this service; docs/operator.md)\n`);
    expect(out).toContain('svc: registration is closed on every path (agents cannot sign themselves up). To let them in:\n');
    expect(out).toContain('svc:   open a path    REGISTRATION_PATHS=wallet npm start   (paths: anonymous, email, wallet, claim; docs/identity.md)\n');
    expect(out).toContain(`svc:   or make one    DATA_DIR=${folder.dataDir} npx svc agents create --name my-agent   (prints its API key once)\n`);
  });

  it('takes svc agents create and svc keys create while it runs; the agent key answers GET /me', async () => {
    const stat = lstatSync(socketPath);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);

    const { agentId, key } = await createAgent('first agent');
    const res = await me(key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: agentId, name: 'first agent' });

    const keys = await runCli(['keys', 'create', '--tier', 'execute'], env);
    expect(keys.code, keys.stderr).toBe(0);
    const operatorKey = linesOf(keys.stdout).find((l) => l.startsWith('api key:'))!.slice('api key:'.length).trim();
    const chains = await fetch(`${folder.base}/api/agent/v1/discover/chains`, { headers: { authorization: `Bearer ${operatorKey}` } });
    expect(chains.status).toBe(200);
  });

  it('a SIGKILLed run leaves its socket; the next start replaces it and serves commands', async () => {
    first.child.kill('SIGKILL');
    await first.exited;
    expect(lstatSync(socketPath).isSocket()).toBe(true);

    const second = await start();
    expect(second.stdout()).toContain(`svc:   operator       ${socketPath} (`);
    const { agentId, key } = await createAgent('after the kill');
    expect((await me(key)).body.id).toBe(agentId);

    second.child.kill('SIGINT');
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(second.stdout()).toContain('svc: stopped cleanly\n');
    expect(existsSync(socketPath)).toBe(false);
  });
});
