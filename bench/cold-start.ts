/**
 * Cold start (issue 22): `svc start` — what `npm start` runs — on a data folder that does not exist yet, timed from the
 * spawn to the first 200 of GET /api/agent/v1/health. On the embedded default that covers everything a first run does:
 * anvil, a new PGlite cluster and its migrations, the operator key and its funding, every deployment and its wiring,
 * the demo seed (which runs before HTTP listens) and the listener. With DATABASE_URL, a fresh PostgreSQL database
 * next to it instead of PGlite. Then SIGINT, and the time to a clean exit. BENCH_COLD_RUNS runs (default 3); the goal
 * the issue sets is under 10 s including the seed. It prints and asserts nothing about timings.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { freePort } from '../src/chain/anvil.ts';
import { intFromEnv, runIfMain } from './scope.ts';
import { SERVICE_NODE_FLAGS } from '../bin/node-flags.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const READY_TIMEOUT_MS = 120_000;
const POLL_MS = 50;

export interface ColdStartRun {
  readyMs: number;
  stopMs: number;
}

async function freshPostgres(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `svc_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function ready(url: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`bench: ${url} did not answer 200 within ${READY_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** One cold start on a new folder (and a new database on PostgreSQL); the folder and database are removed after. */
export async function coldStartOnce(log: (line: string) => void): Promise<ColdStartRun> {
  const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'svc-cold-')), 'data'); // does not exist yet
  const port = await freePort();
  let anvilPort = await freePort();
  while (anvilPort === port) anvilPort = await freePort();
  const pgDb = process.env.DATABASE_URL ? await freshPostgres(process.env.DATABASE_URL) : null;
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), ANVIL_PORT: String(anvilPort), LOG_LEVEL: 'warn', ...(pgDb ? { DATABASE_URL: pgDb.url } : { DATABASE_URL: '' }) };
  const started = performance.now();
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, path.join(ROOT, 'bin/svc.mjs'), 'start'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await Promise.race([
      ready(`http://127.0.0.1:${port}/api/agent/v1/health`, Date.now() + READY_TIMEOUT_MS),
      exited.then((code) => {
        throw new Error(`bench: svc start exited (${code}) before it was ready: ${stderr}`);
      }),
    ]);
    const readyMs = performance.now() - started;
    const stopping = performance.now();
    child.kill('SIGINT');
    const code = await exited;
    if (code !== 0) log(`bench: svc start exited with ${code} after SIGINT: ${stderr}`);
    return { readyMs, stopMs: performance.now() - stopping };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
    await pgDb?.drop();
  }
}

export async function benchColdStart(runs: number, log: (line: string) => void): Promise<ColdStartRun[]> {
  const out: ColdStartRun[] = [];
  for (let i = 0; i < runs; i++) {
    log(`bench: cold start ${i + 1} of ${runs}`);
    out.push(await coldStartOnce(log));
  }
  return out;
}

export function formatColdStart(runs: ColdStartRun[]): string[] {
  const sorted = [...runs].sort((a, b) => a.readyMs - b.readyMs);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return [
    `# svc start on a new data folder (${process.env.DATABASE_URL ? 'a new PostgreSQL database' : 'embedded PGlite'}, embedded anvil, demo seed); ${cpus().length} CPU(s), Node ${process.version}`,
    'run  ready (first 200 of /health)  stop (SIGINT to exit)',
    ...runs.map((r, i) => `${String(i + 1).padStart(3)}  ${s(r.readyMs).padStart(28)}  ${s(r.stopMs).padStart(20)}`),
    `median ready ${s(median.readyMs)} (goal: under 10 s)`,
  ];
}

runIfMain(import.meta.url, async (log) => {
  const runs = await benchColdStart(intFromEnv('BENCH_COLD_RUNS', 3, 1, 50), log);
  for (const line of formatColdStart(runs)) log(line);
});
