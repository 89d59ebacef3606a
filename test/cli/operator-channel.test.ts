// The operator channel: a service running on a persistent data folder (PGlite holds its folder lock) takes
// `svc agents create` and `svc keys create` over DATA_DIR/operator.sock, from this process and from the real binary,
// and the keys they print work against it at once. The socket is 0600, a live one is never taken over, a stale one (a
// killed run's) is replaced, and a folder others may write keeps the channel closed. On PostgreSQL the same commands
// go through the channel too (the service's log shows each one).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { chmodSync, existsSync, lstatSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { serveOperatorChannel } from '../../src/cli/svc.ts';
import { callOperatorChannel, type OperatorChannel } from '../../src/cli/operator-channel.ts';
import { ALL_SCOPES, TIER_DEFAULT_SCOPES } from '../../src/core/scopes.ts';
import type { Account } from '../../src/core/ledger/types.ts';
import { dropPostgres, freshPostgresUrl, onPostgres, startTestServer, type TestServer } from '../support/harness.ts';
import { capturedLog } from '../support/log-lines.ts';
import { linesOf, runCli, runSvc } from './svc-process.ts';

const V1 = '/api/agent/v1';
let dataDir: string;
let databaseUrl: string | undefined;
let server: TestServer;
let channel: OperatorChannel | undefined;
/** The service's log lines (JSON), to see which commands ran inside it. */
const { log: serviceLog, lines: logLines } = capturedLog();
let cliEnv: Record<string, string>;

const start = () =>
  startTestServer({
    persistent: true,
    dataDir,
    databaseUrl,
    log: serviceLog,
  });

async function openChannel(): Promise<OperatorChannel> {
  const opened = await serveOperatorChannel(server.runtime);
  if (!('channel' in opened)) throw new Error(`operator channel off: ${opened.off}`);
  return opened.channel;
}

/** The commands the service ran over the channel, as `agents create`, with their exit codes. */
const servedCommands = () =>
  logLines
    .map((l) => JSON.parse(l) as { msg?: string; command?: string; exit?: number })
    .filter((l) => l.msg === 'operator channel: command')
    .map((l) => `${l.command} -> ${l.exit}`);

/** The `label: value` lines a create command prints. */
function fields(stdout: string): Record<string, string> {
  return Object.fromEntries(
    linesOf(stdout)
      .map((l) => /^([a-z ]+):\s+(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-opch-'));
  databaseUrl = onPostgres ? await freshPostgresUrl() : undefined;
  cliEnv = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
  server = await start();
  channel = await openChannel();
});

afterAll(async () => {
  await channel?.close();
  await server?.close();
  if (databaseUrl) await dropPostgres(databaseUrl);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the operator channel of a running service', () => {
  it('listens on DATA_DIR/operator.sock, a socket only its owner may use (mode 0600)', () => {
    expect(channel!.path).toBe(path.join(dataDir, 'operator.sock'));
    const stat = lstatSync(channel!.path);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(stat.uid).toBe(process.getuid!());
  });

  it('svc agents create makes an agent inside the service; its key answers GET /me with that agent', async () => {
    const res = await runSvc(['agents', 'create', '--name', 'channel bot'], cliEnv);
    expect(res.stderr, res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = fields(res.stdout);
    expect(out['api key']).toMatch(/^svc_test_[A-Za-z0-9_-]{32}$/);
    expect(res.stdout.split(out['api key']!).length - 1).toBe(1); // printed once
    expect(out).toMatchObject({ name: 'channel bot', tier: 'execute', scopes: ALL_SCOPES.join(' ') });
    expect(servedCommands()).toContain('agents create -> 0');

    const me = await server.call('GET', `${V1}/me`, { key: out['api key'] });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body).toMatchObject({ id: out['agent id'], kind: 'agent', name: 'channel bot', walletAddress: null, tier: 'execute' });
    expect(me.body.scopes).toHaveLength(11);
    const row = await server.runtime.database.db.selectFrom('agents').selectAll().where('id', '=', out['agent id']!).executeTakeFirstOrThrow();
    expect(row.registration_path).toBe('operator');
  });

  it('svc keys create from the real binary reaches the service too; the operator key reads but has no agent', async () => {
    const res = await runCli(['keys', 'create', '--tier', 'read-only'], cliEnv);
    expect(res.stderr, res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = fields(res.stdout);
    expect(out.scopes).toBe(TIER_DEFAULT_SCOPES['read-only'].join(' '));
    expect(res.stdout).toMatch(/operator key: no agent is behind it/);
    expect(servedCommands()).toContain('keys create -> 0');
    expect((await server.call('GET', `${V1}/discover/chains`, { key: out['api key'] })).status).toBe(200);
    const me = await server.call('GET', `${V1}/me`, { key: out['api key'] });
    expect(me.status).toBe(403);
    expect(me.body.code).toBe('FORBIDDEN');
  });

  it('svc keys create --agent gives an agent the operator made another key, of the tier named', async () => {
    const made = fields((await runSvc(['agents', 'create', '--name', 'two keys'], cliEnv)).stdout);
    const res = await runSvc(['keys', 'create', '--tier', 'read-only', '--agent', made['agent id']!], cliEnv);
    expect(res.code, res.stderr).toBe(0);
    const out = fields(res.stdout);
    expect(out.agent).toBe(made['agent id']);
    expect(res.stdout).not.toMatch(/operator key/);
    const me = await server.call('GET', `${V1}/me`, { key: out['api key'] });
    expect(me.body).toMatchObject({ id: made['agent id'], tier: 'read-only' });

    const unknownId = '00000000-0000-4000-8000-000000000001';
    const unknown = await runSvc(['keys', 'create', '--tier', 'read-only', '--agent', unknownId], cliEnv);
    expect(unknown.code).toBe(1);
    expect(linesOf(unknown.stderr)).toEqual([`svc: no agent with id ${unknownId}`]);
  });

  it('svc agents create --wallet binds the wallet, credits the signup grant, and refuses the wallet a second time', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    const res = await runSvc(['agents', 'create', '--name', 'wallet bot', '--tier', 'propose', '--wallet', wallet], cliEnv);
    expect(res.code, res.stderr).toBe(0);
    const out = fields(res.stdout);
    expect(out.wallet).toBe(wallet.toLowerCase());
    expect(out.scopes).toBe(TIER_DEFAULT_SCOPES.propose.join(' '));
    const me = await server.call('GET', `${V1}/me`, { key: out['api key'] });
    expect(me.body).toMatchObject({ walletAddress: wallet.toLowerCase(), tier: 'propose' });
    const balances = await server.runtime.services.ledger.balancesOf(wallet.toLowerCase() as Account);
    expect(balances).toEqual([{ account: wallet.toLowerCase(), assetId: 0n, balance: server.config.ledger.signupGrant }]);

    const again = await runSvc(['agents', 'create', '--name', 'copycat', '--wallet', wallet], cliEnv);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(linesOf(again.stderr)).toEqual([`svc: wallet ${wallet.toLowerCase()} is already bound to an agent; recover its key with POST /keys/recover`]);
  });

  it('brings back a command\'s failure as the same one line and exit code as the direct path', async () => {
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const res = await runCli(['keys', 'revoke', unknownId], cliEnv);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(linesOf(res.stderr)).toEqual([`svc: no API key with id ${unknownId}`]);
    expect(servedCommands()).toContain('keys revoke -> 1');
  });

  it('checks arguments before reaching the service', async () => {
    const served = servedCommands().length;
    const res = await runSvc(['agents', 'create', '--tier', 'execute'], cliEnv);
    expect(res.code).toBe(1);
    expect(linesOf(res.stderr)).toEqual(['svc: svc agents create needs --name <name> (usage: svc help)']);
    const badName = await runSvc(['agents', 'create', '--name', 'http://x'], cliEnv);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toMatch(/^svc: --name may hold letters, digits/);
    expect(servedCommands()).toHaveLength(served);
  });

  it('carries the commands that need the whole service: svc faucet pays through the running relayer', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    const res = await runSvc(['faucet', wallet], cliEnv);
    expect(res.code, res.stderr).toBe(0);
    expect(linesOf(res.stdout)[0]).toMatch(new RegExp(`^faucet: paid ${wallet.toLowerCase()} on chain 8453 `));
    expect(servedCommands()).toContain('faucet -> 0');
  });

  it('answers only the protocol and only operator commands', async () => {
    const raw = async (request: string): Promise<unknown[]> => {
      const socket = createConnection(channel!.path);
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
      await once(socket, 'connect');
      socket.write(request);
      await once(socket, 'close');
      return linesOf(text).map((l) => JSON.parse(l));
    };
    expect(await raw('nonsense\n')).toEqual([{ err: 'svc: operator request is not JSON' }, { exit: 2 }]);
    expect(await raw(`${JSON.stringify({ svcOperator: 2, argv: ['migrate'] })}\n`)).toEqual([
      { err: expect.stringMatching(/^svc: operator protocol 2 is not served here/) },
      { exit: 2 },
    ]);
    // `start` (or `ledger verify`) is not an operator command: the service never runs it.
    expect(await raw(`${JSON.stringify({ svcOperator: 1, argv: ['start'] })}\n`)).toEqual([{ err: "svc: 'start' is not an operator command (usage: svc help)" }, { exit: 1 }]);
  });

  it('is not taken over by a second service on the same folder', async () => {
    const second = await serveOperatorChannel(server.runtime);
    expect(second).toEqual({ off: `another svc already answers on ${path.join(dataDir, 'operator.sock')}` });
    expect(lstatSync(channel!.path).isSocket()).toBe(true);
  });
});

describe('without the channel', () => {
  it('a clean close removes the socket; the database is then the service\'s alone on PGlite', async () => {
    await channel!.close();
    channel = undefined;
    expect(existsSync(path.join(dataDir, 'operator.sock'))).toBe(false);
    const res = await runSvc(['keys', 'create', '--tier', 'execute'], cliEnv);
    if (onPostgres) {
      expect(res.code, res.stderr).toBe(0); // PostgreSQL: the command runs on the database directly
    } else {
      expect(res.code).toBe(1);
      expect(linesOf(res.stderr)).toHaveLength(1);
      expect(res.stderr).toMatch(/is in use by process .*no service answered on .*operator\.sock/);
    }
  });

  it('stays closed in a folder its group may write', async () => {
    chmodSync(dataDir, 0o770);
    try {
      const opened = await serveOperatorChannel(server.runtime);
      expect(opened).toEqual({ off: expect.stringMatching(/may be written by its group or others \(mode 770\); chmod go-w /) });
      expect(existsSync(path.join(dataDir, 'operator.sock'))).toBe(false);
    } finally {
      chmodSync(dataDir, 0o700);
    }
  });

  it('replaces a socket a killed run left behind, and serves commands again', async () => {
    const socketPath = path.join(dataDir, 'operator.sock');
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    await once(child, 'exit');
    expect(lstatSync(socketPath).isSocket()).toBe(true); // left behind: nobody answers on it
    expect(await callOperatorChannel(dataDir, ['migrate'], { out: () => undefined, err: () => undefined })).toBeNull();

    channel = await openChannel();
    const res = await runSvc(['agents', 'create', '--name', 'after the crash'], cliEnv);
    expect(res.code, res.stderr).toBe(0);
    expect((await server.call('GET', `${V1}/me`, { key: fields(res.stdout)['api key'] })).status).toBe(200);
    const migrate = await runSvc(['migrate'], cliEnv);
    expect(linesOf(migrate.stdout)).toEqual(['database is up to date']);
    expect(servedCommands().slice(-2)).toEqual(['agents create -> 0', 'migrate -> 0']);
  });

  it('svc agents create runs on the database directly once the service has stopped; the next start serves its key', async () => {
    await channel!.close();
    channel = undefined;
    await server.close();
    const res = await runSvc(['agents', 'create', '--name', 'offline bot', '--tier', 'read-only'], cliEnv);
    expect(res.code, res.stderr).toBe(0);
    const out = fields(res.stdout);
    server = await start();
    const me = await server.call('GET', `${V1}/me`, { key: out['api key'] });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: out['agent id'], name: 'offline bot', tier: 'read-only' });
  });
});
