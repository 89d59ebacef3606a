// Environment -> config: the embedded defaults, the switches to PostgreSQL and an external chain,
// and the one-line ConfigError for every bad value.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const KEY = `0x${'ab'.repeat(32)}`;
const ADDR_A = `0x${'11'.repeat(20)}`;
const ADDR_B = `0x${'22'.repeat(20)}`;

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('loadConfig: embedded defaults', () => {
  const config = loadConfig({});

  it('listens on 8080 with a local public base URL and MCP under it', () => {
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.publicBaseUrl).toBe('http://127.0.0.1:8080');
    expect(config.mcpUrl).toBe(`${config.publicBaseUrl}/mcp`);
  });

  it('keeps everything under ./data, resolved absolute', () => {
    expect(path.isAbsolute(config.dataDir)).toBe(true);
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.database).toEqual({ kind: 'pglite', dir: path.join(config.dataDir, 'pg') });
    expect(config.chain.anvilStateFile).toBe(path.join(config.dataDir, 'chain', 'state.json'));
    expect(config.chain.operatorKeyFile).toBe(path.join(config.dataDir, 'operator.key'));
  });

  it('runs an embedded Base-id chain in the test environment', () => {
    expect(config.chain.mode).toBe('embedded');
    expect(config.chain.id).toBe(8453);
    expect(config.chain.anvilPort).toBe(8545);
    expect(config.chain.operatorPrivateKey).toBeUndefined();
    expect(config.environment).toBe('test');
  });

  it('has no registration paths and conservative limits', () => {
    expect(config.registrationPaths).toEqual([]);
    expect(config.logLevel).toBe('info');
    expect(config.trustProxy).toBe(false);
    expect(config.redisUrl).toBeUndefined();
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', DATA_DIR: '', DATABASE_URL: '' })).toEqual(config);
  });

  it('derives paths from DATA_DIR and MCP from PUBLIC_BASE_URL (trailing slash dropped)', () => {
    const c = loadConfig({ DATA_DIR: '/srv/svc', PUBLIC_BASE_URL: 'https://svc.example.com/', PORT: '9000' });
    expect(c.port).toBe(9000);
    expect(c.publicBaseUrl).toBe('https://svc.example.com');
    expect(c.mcpUrl).toBe('https://svc.example.com/mcp');
    expect(c.database).toEqual({ kind: 'pglite', dir: '/srv/svc/pg' });
    expect(c.chain.anvilStateFile).toBe('/srv/svc/chain/state.json');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://a.example', MCP_URL: 'https://mcp.example/x' }).mcpUrl).toBe('https://mcp.example/x');
  });

  it('parses registration paths', () => {
    expect(loadConfig({ REGISTRATION_PATHS: ' wallet,' }).registrationPaths).toEqual(['wallet']);
    expect(loadConfig({ REGISTRATION_PATHS: 'anonymous,email,wallet,claim' }).registrationPaths).toEqual(['anonymous', 'email', 'wallet', 'claim']);
    expect(loadConfig({}).registrationPaths).toEqual([]);
  });

  it('parses the human check: local proof of work by default, Turnstile only with a secret', () => {
    expect(loadConfig({}).humanCheck).toEqual({ kind: 'pow', bits: 18 });
    expect(loadConfig({ HUMAN_CHECK_POW_BITS: '8' }).humanCheck).toEqual({ kind: 'pow', bits: 8 });
    expect(loadConfig({ HUMAN_CHECK: 'turnstile', HUMAN_CHECK_SECRET: 's3cret', HUMAN_CHECK_SITE_KEY: 'site' }).humanCheck).toEqual({
      kind: 'turnstile',
      siteverifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
      secret: 's3cret',
      siteKey: 'site',
    });
    expect(configError({ HUMAN_CHECK: 'turnstile' }).message).toBe('config: HUMAN_CHECK_SECRET is required when HUMAN_CHECK=turnstile');
  });

  it('parses fill packs and lists them cheapest first', () => {
    expect(loadConfig({ FILL_PACKS: '5000:2000, 1000:500' }).fills.packs).toEqual([
      { fills: 1000, usdCents: 500 },
      { fills: 5000, usdCents: 2000 },
    ]);
    expect(loadConfig({}).fills.packConfirmations).toBe(1);
    expect(loadConfig({ FILL_PACK_CONFIRMATIONS: '12' }).fills.packConfirmations).toBe(12);
  });

  it('takes the confirmation depth per chain: 1 on the embedded anvil, the chain default on a node of our own, or CHAIN_CONFIRMATIONS', () => {
    const external = { CHAIN_RPC_URL: 'http://127.0.0.1:9545', OPERATOR_PRIVATE_KEY: `0x${'11'.repeat(32)}`, PM_TOKEN_ADDRESS: `0x${'22'.repeat(20)}`, USDC_TOKEN_ADDRESS: `0x${'33'.repeat(20)}` };
    expect(loadConfig({}).chain.confirmations).toBe(1);
    expect(loadConfig(external).chain.confirmations).toBe(10); // Base
    expect(loadConfig({ ...external, CHAIN_ID: '1' }).chain.confirmations).toBe(12);
    expect(loadConfig({ ...external, CHAIN_ID: '424242' }).chain.confirmations).toBe(12);
    expect(loadConfig({ ...external, CHAIN_CONFIRMATIONS: '1' }).chain.confirmations).toBe(1);
    // A pack payment waits as long as the chain's depth unless told otherwise.
    expect(loadConfig(external).fills.packConfirmations).toBe(10);
    expect(loadConfig({ ...external, FILL_PACK_CONFIRMATIONS: '3' }).fills.packConfirmations).toBe(3);
    expect(loadConfig({}).chain).toMatchObject({ probeIntervalMs: 2_000, reconcileIntervalMs: 30_000 });
  });

  it('takes shorter resolution windows in a test environment only', () => {
    expect(loadConfig({}).resolution).toEqual({ voteQuorum: 3, challengeWindowSeconds: 7200, voteWindowSeconds: 86_400 });
    expect(loadConfig({ RESOLUTION_CHALLENGE_WINDOW_SECONDS: '60', RESOLUTION_VOTE_WINDOW_SECONDS: '120', VOTE_QUORUM: '1' }).resolution).toEqual({ voteQuorum: 1, challengeWindowSeconds: 60, voteWindowSeconds: 120 });
    expect(() => loadConfig({ SVC_ENVIRONMENT: 'live', RESOLUTION_CHALLENGE_WINDOW_SECONDS: '60' })).toThrow(/cannot go below 7200 and 86400 in a live environment/);
    expect(loadConfig({ SVC_ENVIRONMENT: 'live', RESOLUTION_VOTE_WINDOW_SECONDS: '172800' }).resolution.voteWindowSeconds).toBe(172_800);
  });
});

describe('loadConfig: switches', () => {
  it('DATABASE_URL switches to PostgreSQL', () => {
    for (const url of ['postgres://postgres@127.0.0.1:5432/test', 'postgresql://u:p@db.example/svc']) {
      expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ kind: 'postgres', url });
    }
  });

  it('CHAIN_RPC_URL with a key and both token addresses selects an external live chain', () => {
    const c = loadConfig({ CHAIN_RPC_URL: 'https://rpc.example', OPERATOR_PRIVATE_KEY: KEY, PM_TOKEN_ADDRESS: ADDR_A, USDC_TOKEN_ADDRESS: ADDR_B });
    expect(c.chain.mode).toBe('external');
    expect(c.chain.rpcUrl).toBe('https://rpc.example');
    expect(c.chain.operatorPrivateKey).toBe(KEY);
    expect(c.chain.pmTokenAddress).toBe(ADDR_A);
    expect(c.chain.usdcTokenAddress).toBe(ADDR_B);
    expect(c.environment).toBe('live');
  });

  it('SVC_ROLE=api joins a deployment: it needs PostgreSQL and an external chain', () => {
    expect(loadConfig({}).role).toBe('all');
    const joining: Record<string, string> = { SVC_ROLE: 'api', DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc', CHAIN_RPC_URL: 'http://127.0.0.1:8545', OPERATOR_PRIVATE_KEY: KEY, PM_TOKEN_ADDRESS: ADDR_A, USDC_TOKEN_ADDRESS: ADDR_B };
    expect(loadConfig(joining).role).toBe('api');
    for (const missing of ['DATABASE_URL', 'CHAIN_RPC_URL']) {
      const { [missing]: _gone, ...env } = joining;
      expect(configError(env).message).toMatch(/^config: SVC_ROLE=api needs DATABASE_URL and CHAIN_RPC_URL/);
    }
    expect(configError({ SVC_ROLE: 'workers' }).message).toMatch(/^config: SVC_ROLE /);
  });

  it('CHAIN_RPC_URL without OPERATOR_PRIVATE_KEY is refused with one line', () => {
    const err = configError({ CHAIN_RPC_URL: 'https://rpc.example', PM_TOKEN_ADDRESS: ADDR_A, USDC_TOKEN_ADDRESS: ADDR_B });
    expect(err.message).toMatch(/^config: OPERATOR_PRIVATE_KEY .*CHAIN_RPC_URL/);
    expect(err.message).not.toContain('\n');
  });

  it('CHAIN_RPC_URL without either token address is refused with one line', () => {
    for (const missing of ['PM_TOKEN_ADDRESS', 'USDC_TOKEN_ADDRESS']) {
      const env: Record<string, string> = { CHAIN_RPC_URL: 'https://rpc.example', OPERATOR_PRIVATE_KEY: KEY, PM_TOKEN_ADDRESS: ADDR_A, USDC_TOKEN_ADDRESS: ADDR_B };
      delete env[missing];
      const err = configError(env);
      expect(err.message).toMatch(/^config: PM_TOKEN_ADDRESS and USDC_TOKEN_ADDRESS are required when CHAIN_RPC_URL is set/);
      expect(err.message).not.toContain('\n');
    }
  });
});

describe('loadConfig: bad values', () => {
  const cases: [string, string][] = [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', ' '], // whitespace is not 0 (a random port)
    ['PORT', '1e3'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_LEVEL', 'warn\nfatal'],
    ['REGISTRATION_PATHS', 'anonymous,bogus'],
    ['SMTP_URL', 'http://mail.example'],
    ['HUMAN_CHECK', 'captcha'],
    ['HUMAN_CHECK_POW_BITS', '33'],
    ['FILL_PACKS', '1000:0'],
    ['FILL_PACKS', '1000'],
    ['FILL_PACKS', '1000:500,1000:400'],
    ['FILL_PACK_CONFIRMATIONS', '0'],
    ['CHAIN_CONFIRMATIONS', '0'],
    ['CHAIN_PROBE_INTERVAL_MS', '5'],
    ['CHAIN_RECONCILE_INTERVAL_MS', 'soon'],
    ['OPERATOR_PRIVATE_KEY', '0x12'],
    ['DATABASE_URL', 'mysql://x'],
    ['CHAIN_ID', '0'],
    ['CHAIN_ID', '0x2105'],
    ['PUBLIC_BASE_URL', 'ftp://svc.example'],
    ['TRUST_PROXY', 'maybe'],
    ['PM_TOKEN_ADDRESS', '0x1234'],
  ];
  it.each(cases)('%s=%j throws a one-line ConfigError naming the variable', (name, value) => {
    const err = configError({ [name]: value });
    expect(err.message.startsWith(`config: ${name}`)).toBe(true);
    expect(err.message).not.toMatch(/[\r\n]/);
  });

  it('never echoes a bad private key, and masks passwords in bad URLs', () => {
    const nearlyKey = 'ab'.repeat(32); // the 0x forgotten
    const keyErr = configError({ OPERATOR_PRIVATE_KEY: nearlyKey });
    expect(keyErr.message).toMatch(/^config: OPERATOR_PRIVATE_KEY/);
    expect(keyErr.message).not.toContain(nearlyKey);
    const urlErr = configError({ DATABASE_URL: 'mysql://root:hunter2@db.example/svc' });
    expect(urlErr.message).toMatch(/^config: DATABASE_URL/);
    expect(urlErr.message).not.toContain('hunter2');
  });

  it('accepts padded integers', () => {
    expect(loadConfig({ PORT: ' 8081 ' }).port).toBe(8081);
    expect(loadConfig({ CHAIN_ID: '84532' }).chain.id).toBe(84532);
  });
});
