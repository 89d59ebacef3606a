// The `svc` command line: keys create|revoke, migrate, config errors, usage. A few cases spawn the real
// binary (exit code, exactly what reaches stdout and stderr); the rest run the same command code in-process.
// On PostgreSQL (DATABASE_URL set) each data folder gets a fresh database.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/core/scopes.ts';
import { openDatabase } from '../../src/db/index.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { linesOf, runCli, runSvc } from './svc-process.ts';
import { migratedPGlite } from '../support/pglite-template.ts';

interface Env {
  dataDir: string;
  databaseUrl?: string;
  vars: Record<string, string>;
}

const created: Env[] = [];

async function freshEnv(): Promise<Env> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-cli-'));
  const databaseUrl = onPostgres ? await freshPostgresUrl() : undefined;
  const env: Env = { dataDir, databaseUrl, vars: { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) } };
  created.push(env);
  return env;
}

afterAll(async () => {
  for (const env of created) {
    if (env.databaseUrl) await dropPostgres(env.databaseUrl);
    rmSync(env.dataDir, { recursive: true, force: true });
  }
});

/** The `label: value` lines printed by `svc keys create`. */
function parseCreate(stdout: string): { keyId: string; tier: string; scopes: string[]; key: string } {
  const field = (label: string) => {
    const line = linesOf(stdout).find((l) => l.startsWith(`${label}:`));
    if (!line) throw new Error(`no '${label}:' line in:\n${stdout}`);
    return line.slice(label.length + 1).trim();
  };
  return { keyId: field('key id'), tier: field('tier'), scopes: field('scopes').split(/\s+/), key: field('api key') };
}

describe('svc keys', () => {
  let env: Env;
  beforeAll(async () => {
    env = await freshEnv();
    // A folder as `svc migrate` leaves it (the fresh-folder case has its own test below).
    if (!env.databaseUrl) await (await migratedPGlite(path.join(env.dataDir, 'pg'))).close();
  });

  let executeKey: { keyId: string; key: string } | undefined;

  it('create --tier execute prints the key once, its id and the eleven execute scopes', async () => {
    const res = await runCli(['keys', 'create', '--tier', 'execute', '--label', 'cli test'], env.vars);
    expect(res.stderr, res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = parseCreate(res.stdout);
    expect(out.key).toMatch(/^svc_test_[A-Za-z0-9_-]{32}$/);
    expect(res.stdout.split(out.key).length - 1).toBe(1); // printed exactly once
    expect(res.stdout.match(/api key: svc_test_/g)).toHaveLength(1);
    expect(out.keyId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(out.tier).toBe('execute');
    expect(out.scopes).toEqual([...ALL_SCOPES]);
    expect(out.scopes).toHaveLength(11);
    executeKey = out;
  });

  it('stores the key only as its SHA-256 hash', async () => {
    expect(executeKey).toBeDefined();
    const { key, keyId } = executeKey!;
    const database = await openDatabase(env.databaseUrl ? { databaseUrl: env.databaseUrl } : { pgliteDir: path.join(env.dataDir, 'pg') });
    try {
      const rows = await database.db.selectFrom('api_keys').selectAll().execute();
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.id).toBe(keyId);
      expect(row.key_hash).toBe(createHash('sha256').update(key, 'utf8').digest('hex'));
      expect(key.startsWith(row.prefix)).toBe(true);
      expect(row.prefix.length).toBeLessThan(key.length);
      expect(row.label).toBe('cli test');
      const everyValue = Object.values(row)
        .map((v) => (v instanceof Date ? v.toISOString() : typeof v === 'string' ? v : JSON.stringify(v)))
        .join('\u0000');
      expect(everyValue).not.toContain(key);
      expect(JSON.stringify(row)).not.toContain(key);
    } finally {
      await database.close();
    }
  });

  it('create --tier propose --scopes prints the named scopes', async () => {
    const res = await runSvc(['keys', 'create', '--tier', 'propose', '--scopes', 'markets:read,trade:quote'], env.vars);
    expect(res.code, res.stderr).toBe(0);
    const out = parseCreate(res.stdout);
    expect(out.tier).toBe('propose');
    expect(out.scopes).toEqual(['markets:read', 'trade:quote']);
  });

  it('create --tier admin exits 1 with one usage line', async () => {
    const res = await runSvc(['keys', 'create', '--tier', 'admin'], env.vars);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    const lines = linesOf(res.stderr);
    expect(lines, res.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^svc: --tier must be one of read-only, propose, execute/);
  });

  it('create without --tier and with an unknown scope exit 1 with one line', async () => {
    const noTier = await runSvc(['keys', 'create'], env.vars);
    expect(noTier.code).toBe(1);
    expect(linesOf(noTier.stderr)).toHaveLength(1);
    const bogus = await runSvc(['keys', 'create', '--tier', 'execute', '--scopes', 'bogus:scope'], env.vars);
    expect(bogus.code).toBe(1);
    expect(bogus.stdout).toBe('');
    const lines = linesOf(bogus.stderr);
    expect(lines, bogus.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^svc: unknown scope\(s\): bogus:scope/);
  });

  it('revoke <id> exits 0; revoking an unknown id or a non-uuid exits 1 with a clear line', async () => {
    const { keyId } = executeKey!;
    const res = await runSvc(['keys', 'revoke', keyId], env.vars);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^revoked ${keyId} \\(svc_test_`));

    const unknownId = '00000000-0000-4000-8000-000000000000';
    const unknown = await runSvc(['keys', 'revoke', unknownId], env.vars);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(linesOf(unknown.stderr)).toEqual([`svc: no API key with id ${unknownId}`]);

    const notUuid = await runSvc(['keys', 'revoke', 'abc'], env.vars);
    expect(notUuid.code).toBe(1);
    expect(linesOf(notUuid.stderr)).toHaveLength(1);
    expect(notUuid.stderr).toMatch(/^svc: 'abc' is not a key id/);
  });

  it('the revoked key is marked revoked in the database', async () => {
    const database = await openDatabase(env.databaseUrl ? { databaseUrl: env.databaseUrl } : { pgliteDir: path.join(env.dataDir, 'pg') });
    try {
      const row = await database.db.selectFrom('api_keys').selectAll().where('id', '=', executeKey!.keyId).executeTakeFirstOrThrow();
      expect(row.status).toBe('revoked');
      expect(row.revoked_at).not.toBeNull();
    } finally {
      await database.close();
    }
  });

  it('migrate after keys create reports the database up to date', async () => {
    const res = await runSvc(['migrate'], env.vars);
    expect(res.code, res.stderr).toBe(0);
    expect(linesOf(res.stdout)).toEqual(['database is up to date']);
  });
});

describe('svc migrate on a fresh data folder', () => {
  it('applies the migrations, then is up to date', async () => {
    const env = await freshEnv();
    const first = await runSvc(['migrate'], env.vars);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^applied: 0001_foundation(, [0-9]{4}_[a-z0-9_]+)*\n$/);
    const second = await runSvc(['migrate'], env.vars);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('database is up to date\n');
  });
});

describe('svc: config errors and usage', () => {
  let env: Env;
  beforeAll(async () => {
    env = await freshEnv();
  });

  it('start with PORT=abc exits 1 with exactly one stderr line naming PORT', async () => {
    const res = await runCli(['start'], { ...env.vars, PORT: 'abc' });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    const lines = res.stderr.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
    expect(lines, res.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^config: PORT /);
  });

  it('other commands refuse a bad config the same way', async () => {
    const res = await runSvc(['keys', 'create', '--tier', 'execute'], { ...env.vars, LOG_LEVEL: 'loud' });
    expect(res.code).toBe(1);
    expect(linesOf(res.stderr)).toHaveLength(1);
    expect(res.stderr).toMatch(/^config: LOG_LEVEL /);
  });

  it('no command prints the usage and exits 1', async () => {
    const res = await runCli([], env.vars);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^usage:\n {2}svc start /);
    for (const cmd of ['svc start', 'svc migrate', 'svc keys create', 'svc keys revoke']) expect(res.stdout).toContain(cmd);
  });

  it('help prints the usage and exits 0', async () => {
    const res = await runSvc(['help'], env.vars);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^usage:/);
  });

  it('an unknown command exits 1 with one line naming it', async () => {
    const res = await runSvc(['frobnicate'], env.vars);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(linesOf(res.stderr)).toHaveLength(1);
    expect(res.stderr).toMatch(/^svc: unknown command 'frobnicate'/);
  });

  it('keys with an unknown subcommand exits 1', async () => {
    const res = await runSvc(['keys', 'rotate'], env.vars);
    expect(res.code).toBe(1);
    expect(linesOf(res.stderr)).toHaveLength(1);
  });
});
