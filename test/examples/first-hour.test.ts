// The example agent (examples/first-hour.ts) run as a newcomer runs it: its own process, against the embedded
// service over HTTP, learning everything from the service's documents. If the quickstart rots, this fails.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../examples/first-hour.ts');
let server: TestServer;
let base: string;
beforeAll(async () => {
  // The ledger commits a batch every half second, so the example's proof does not wait the default 10 s.
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', LEDGER_BATCH_INTERVAL_MS: '500' } });
  base = await server.runtime.listen();
});
afterAll(async () => server?.close());

function runExample(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('examples/first-hour.ts', () => {
  it('registers, gets test funds, creates a market, quotes over MCP and trades, places and cancels an order, verifies its ledger proof', async () => {
    const run = await runExample({ SVC_URL: base });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.map((l) => l.replace(/^(\d+)\. (\S+).*$/, '$1 $2'))).toEqual(['1 registered', '2 faucet', '3 created', '4 quoted', '5 bought:', '6 order', '7 ledger', 'first hour: done']);
    expect(run.stdout).toMatch(/status cancelled, remaining 0/);
    // What the example did is what the service holds.
    const agents = await server.runtime.database.db.selectFrom('agents').select('name').where('name', 'like', 'first-hour-%').execute();
    expect(agents).toHaveLength(1);
  }, 120_000);
});
