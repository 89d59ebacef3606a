// The operator commands `svc comment add` and `svc market <edge>` (halt, unfreeze, takedown…), run as the real command against a data
// folder (or a fresh PostgreSQL database with DATABASE_URL) that holds one projected market.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openConfiguredDatabase } from '../../src/db/index.ts';
import { linesOf, runCli, runSvc } from '../cli/svc-process.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { bareMarketRow } from '../support/market-rows.ts';
import { migratedPGlite } from '../support/pglite-template.ts';

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const market = hex(20);
const author = hex(20);
let dataDir: string;
let databaseUrl: string | undefined;
let vars: Record<string, string>;

const open = () => openConfiguredDatabase(loadConfig(vars).database);

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-comment-'));
  databaseUrl = onPostgres ? await freshPostgresUrl() : undefined;
  vars = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
  // The folder (or database) as `svc migrate` leaves it; a PGlite folder is copied from the migrated template.
  if (databaseUrl) expect((await runSvc(['migrate'], vars)).code).toBe(0);
  else await (await migratedPGlite(path.join(dataDir, 'pg'))).close();
  const database = await open();
  try {
    await database.db
      .insertInto('markets')
      .values(bareMarketRow({ chainId: loadConfig(vars).chain.id, address: market, question: 'Will the operator comment land?' }))
      .execute();
  } finally {
    await database.close();
  }
});

afterAll(async () => {
  if (databaseUrl) await dropPostgres(databaseUrl);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('svc comment add', () => {
  it('stores the comment and prints its id', async () => {
    const res = await runCli(['comment', 'add', '--market', market.toUpperCase().replace('0X', '0x'), '--author', author, '--body', 'Source checked: looks fine.'], vars);
    expect(res.stderr, res.stderr).toBe('');
    expect(res.code).toBe(0);
    const id = linesOf(res.stdout).find((l) => l.startsWith('comment id:'))?.split(':')[1]?.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const database = await open();
    try {
      const row = await database.db.selectFrom('market_comments').selectAll().where('id', '=', id!).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ market, author_wallet: author, body: 'Source checked: looks fine.' });
    } finally {
      await database.close();
    }
  });

  it.each([
    ['a missing --body', ['comment', 'add', '--market', market, '--author', author], 'needs --market, --author and --body'],
    ['an unknown market', ['comment', 'add', '--market', hex(20), '--author', author, '--body', 'hi'], 'no market'],
    ['a malformed author', ['comment', 'add', '--market', market, '--author', 'alice', '--body', 'hi'], 'not a wallet address'],
    ['a body over 2000 characters', ['comment', 'add', '--market', market, '--author', author, '--body', 'x'.repeat(2001)], '1..2000 characters'],
    ['an unknown subcommand', ['comment', 'remove'], 'svc comment add'],
  ])('refuses %s with one line', async (_label, args, message) => {
    const res = await runSvc(args, vars);
    expect(res.code).toBe(1);
    expect(linesOf(res.stderr)).toHaveLength(1);
    expect(res.stderr).toContain(message);
  });
});

describe('svc market control edges', () => {
  const controlsEvents = async () => {
    const database = await open();
    try {
      return (await database.db.selectFrom('events').selectAll().where('type', '=', 'market.controlsChanged').where('market_address', '=', market).orderBy('seq').execute()).map((e) => e.payload);
    } finally {
      await database.close();
    }
  };

  it('halts and resumes trading, emitting market.controlsChanged with isTradeable', async () => {
    const halted = await runSvc(['market', 'halt', market, '--reason', 'OPERATOR_REVIEW'], vars);
    expect(halted.stderr, halted.stderr).toBe('');
    expect(halted.stdout).toContain('interaction enabled -> halted; isTradeable false');
    const resumed = await runSvc(['market', 'unfreeze', market], vars);
    expect(resumed.stdout).toContain('interaction halted -> enabled; isTradeable true');
    expect(await controlsEvents()).toEqual([
      { axis: 'interaction', previousState: 'enabled', newState: 'halted', reasonCode: 'OPERATOR_REVIEW', isTradeable: false },
      { axis: 'interaction', previousState: 'halted', newState: 'enabled', reasonCode: null, isTradeable: true },
    ]);
  });

  it('takes a market down with its cascade, refuses to unfreeze it, and reinstates it', async () => {
    const before = (await controlsEvents()).length;
    const down = await runSvc(['market', 'takedown', market, '--reason', 'POLICY_VIOLATION'], vars);
    expect(down.stderr, down.stderr).toBe('');
    expect(down.stdout).toContain('policy active -> taken_down, discovery listed -> hidden, mutation unlocked -> locked, interaction enabled -> halted; isTradeable false');
    const refused = await runSvc(['market', 'unfreeze', market], vars);
    expect([refused.code, linesOf(refused.stderr).length]).toEqual([1, 1]);
    expect(refused.stderr).toContain('reinstate it before unfreeze');
    const back = await runSvc(['market', 'reinstate', market], vars);
    expect(back.stdout).toContain('policy taken_down -> active, discovery hidden -> listed; isTradeable false');
    expect((await controlsEvents()).slice(before).map((e) => [(e as { axis: string }).axis, (e as { reasonCode: string | null }).reasonCode])).toEqual([
      ['policy', 'POLICY_VIOLATION'],
      ['discovery', 'POLICY_VIOLATION'],
      ['mutation', 'POLICY_VIOLATION'],
      ['interaction', 'POLICY_VIOLATION'],
      ['policy', null],
      ['discovery', null],
    ]);
    expect((await runSvc(['market', 'unfreeze', market], vars)).stdout).toContain('interaction halted -> enabled');
    expect((await runSvc(['market', 'unlock', market], vars)).stdout).toContain('mutation locked -> unlocked');
  });

  it.each([
    ['an unknown market', ['market', 'halt', hex(20)], 'not known'],
    ['a malformed address', ['market', 'halt', 'nope'], 'not a market address'],
    ['a bad reason code', ['market', 'halt', market, '--reason', 'lower case'], 'UPPER_SNAKE'],
    ['an unknown subcommand', ['market', 'close', market], 'svc market halt|unfreeze'],
  ])('refuses %s with one line', async (_label, args, message) => {
    const res = await runSvc(args, vars);
    expect(res.code).toBe(1);
    expect(linesOf(res.stderr)).toHaveLength(1);
    expect(res.stderr).toContain(message);
  });
});
