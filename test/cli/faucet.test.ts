// `svc faucet <address>`: the operator's test funds for any address, run as the real command code against a data
// folder (or a fresh PostgreSQL database with DATABASE_URL). It starts the embedded chain on the folder's state like
// `svc seed`; the balances are then read from that state with an anvil of the test's own.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, erc20Abi, http, parseEther, parseUnits, type Address } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { startAnvil } from '../../src/chain/anvil.ts';
import { loadConfig } from '../../src/config.ts';
import { openConfiguredDatabase } from '../../src/db/index.ts';
import { newAccount } from '../support/agents.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { migratedPGlite } from '../support/pglite-template.ts';
import { linesOf, runSvc } from './svc-process.ts';

const folders: string[] = [];
const databases: string[] = [];
afterAll(async () => {
  for (const url of databases) await dropPostgres(url);
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

async function freshVars(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-faucet-'));
  folders.push(dataDir);
  const databaseUrl = onPostgres ? await freshPostgresUrl() : undefined;
  if (databaseUrl) databases.push(databaseUrl);
  else await (await migratedPGlite(path.join(dataDir, 'pg'))).close();
  return { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ANVIL_PORT: '0', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...extra };
}

/** A folder with nothing in it: a refusal must not need a database or a chain. */
function emptyVars(extra: Record<string, string> = {}): Record<string, string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-faucet-'));
  folders.push(dataDir);
  return { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra };
}

describe('svc faucet', () => {
  it('refuses a missing or malformed address before starting anything', async () => {
    const vars = emptyVars();
    const none = await runSvc(['faucet'], vars);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('svc faucet <address>');
    const bad = await runSvc(['faucet', '0x1234'], vars);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("'0x1234' is not an address");
  });

  it('refuses on a live environment, naming why', async () => {
    const vars = emptyVars({ SVC_ENVIRONMENT: 'live' });
    const res = await runSvc(['faucet', newAccount().address], vars);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('the faucet exists only on the test environment');
    expect(res.stderr).toContain('FAUCET_LIVE_ENVIRONMENT');
    expect(readdirSync(vars.DATA_DIR!)).toEqual([]);
  });

  it('pays any address ETH, TestUSDC and PM on the embedded chain and prints each transaction', async () => {
    const vars = await freshVars();
    const wallet = newAccount().address;
    const res = await runSvc(['faucet', wallet], vars);
    expect(res.stderr, res.stderr).toBe('');
    expect(res.code).toBe(0);
    const lines = linesOf(res.stdout);
    expect(lines[0]).toMatch(new RegExp(`^faucet: paid ${wallet.toLowerCase()} on chain 8453 \\(grant [0-9a-f-]{36}\\)$`));
    expect(lines.slice(1).map((l) => l.trim().split(/\s+/).slice(0, 2))).toEqual([
      ['ETH', '1'],
      ['USDC', '10000'],
      ['PM', '10000'],
    ]);

    // The grant is kept (no agent, no key: the operator's), each transfer confirmed by the relayer.
    const config = loadConfig(vars);
    const database = await openConfiguredDatabase(config.database);
    let usdc: Address;
    let pm: Address;
    try {
      const grant = await database.db.selectFrom('faucet_grants').selectAll().executeTakeFirstOrThrow();
      expect(grant).toMatchObject({ wallet: wallet.toLowerCase(), agent_id: null, key_id: null });
      const sent = await database.db.selectFrom('relayer_transactions').select(['operation_id', 'state']).where('operation_id', 'like', `faucet:${grant.id}:%`).orderBy('operation_id').execute();
      expect(sent).toEqual(['eth', 'pm', 'usdc'].map((a) => ({ operation_id: `faucet:${grant.id}:${a}`, state: 'confirmed' })));
      const deployed = await database.db.selectFrom('deployments').select(['name', 'address']).where('name', 'in', ['TestUSDC', 'ParticipationToken']).execute();
      usdc = deployed.find((d) => d.name === 'TestUSDC')!.address as Address;
      pm = deployed.find((d) => d.name === 'ParticipationToken')!.address as Address;
    } finally {
      await database.close();
    }

    // The chain the command left behind holds the funds.
    const anvil = await startAnvil({ chainId: 8453, stateFile: config.chain.anvilStateFile });
    try {
      const client = createPublicClient({ transport: http(anvil.rpcUrl) });
      expect(await client.getBalance({ address: wallet })).toBe(parseEther('1'));
      expect(await client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] })).toBe(parseUnits('10000', 6));
      expect(await client.readContract({ address: pm, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] })).toBe(parseUnits('10000', 18));
    } finally {
      await anvil.stop();
    }
  });
});
