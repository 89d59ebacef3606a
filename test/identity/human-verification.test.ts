// Verified humans: an attestation for one wallet makes humanIdVerified true for the agent of that wallet and of every
// wallet linked under the same identity (they vote as one), and for nobody else; revoking it withdraws it. The
// operator's command (svc identity verify|revoke|status) records and reads the same attestations.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWallet } from '../support/agents.ts';
import { onPostgres, startTestServer, type TestServer } from '../support/harness.ts';
import { migratedPGlite } from '../support/pglite-template.ts';
import { runSvc } from '../cli/svc-process.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
});
afterAll(async () => server?.close());

let idem = 0;
const post = (key: string, p: string, body?: unknown) => server.call('POST', `/api/agent/v1${p}`, { key, body, idempotencyKey: `hv-${++idem}` });
const verified = async (key: string): Promise<boolean> => (await server.call('GET', '/api/agent/v1/me', { key })).body.humanIdVerified;

describe('verified humans', () => {
  it('an attestation covers the wallet and every wallet linked with it, as one voter; nobody else; revoking withdraws it', async () => {
    const root = await registerWallet(server, undefined, 'human-root');
    const child = await registerWallet(server, undefined, 'human-child');
    const stranger = await registerWallet(server, undefined, 'human-stranger');
    const code = (await post(root.key, '/identity/link-code')).body.code;
    const consentId = (await post(child.key, '/identity/link-consent', { code })).body.consent.id;
    expect((await post(root.key, '/identity/approve-links', { consentIds: [consentId] })).status).toBe(200);

    const { humans } = server.runtime.services;
    for (const agent of [root, child, stranger]) expect(await verified(agent.key)).toBe(false);
    // Attested for the child's wallet: the whole identity is one verified human.
    await humans.attest(child.account.address, 'case-17');
    expect([await verified(root.key), await verified(child.key), await verified(stranger.key)]).toEqual([true, true, false]);
    const [asRoot, asChild, asStranger] = await Promise.all([root, child, stranger].map((a) => humans.voterOf(a.account.address)));
    expect(asRoot!.identityKey).toBe(asChild!.identityKey);
    expect(asRoot!.identityKey).toMatch(/^identity:/);
    expect(asRoot!.wallets).toEqual([root.account.address.toLowerCase(), child.account.address.toLowerCase()].sort());
    expect(asStranger).toMatchObject({ identityKey: `wallet:${stranger.account.address.toLowerCase()}`, attestation: null });
    expect(asChild!.attestation).toMatchObject({ wallet: child.account.address.toLowerCase(), verifier: 'operator', reference: 'case-17' });
    // Many at once (the reputation fold's way), whatever their case and repeats: each as voterOf answers it.
    const many = await humans.votersOf([stranger, child, root, child].map((a) => a.account.address));
    expect([...many.keys()]).toEqual([stranger, child, root].map((a) => a.account.address.toLowerCase()));
    expect([many.get(root.account.address.toLowerCase()), many.get(child.account.address.toLowerCase()), many.get(stranger.account.address.toLowerCase())]).toEqual([asRoot, asChild, asStranger]);
    expect(await humans.votersOf([])).toEqual(new Map());

    expect(await humans.revoke(child.account.address)).toBe(true);
    expect(await humans.revoke(child.account.address)).toBe(false);
    expect(await verified(root.key)).toBe(false);
    await humans.attest(child.account.address, null); // attested again: verified again
    expect(await verified(root.key)).toBe(true);
    await expect(humans.attest('0x1234', null)).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
  });
});

describe('svc identity', () => {
  it.skipIf(onPostgres)('verify, status and revoke print what they did; a bad address or subcommand exits 1 with one line', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-identity-'));
    try {
      await (await migratedPGlite(path.join(dataDir, 'pg'))).close();
      const env = { DATA_DIR: dataDir };
      const wallet = '0x00000000000000000000000000000000000000AB';
      const status = await runSvc(['identity', 'status', wallet], env);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(`votes as wallet:${wallet.toLowerCase()} (1 wallet)`);
      expect(status.stdout).toContain('verified human: no');
      const verify = await runSvc(['identity', 'verify', wallet, '--reference', 'passport check 42'], env);
      expect(verify.code, verify.stderr).toBe(0);
      expect(verify.stdout).toMatch(new RegExp(`wallet ${wallet.toLowerCase()}: verified human \\(verifier operator, at `));
      expect(verify.stdout).toContain('verified human: yes');
      const revoke = await runSvc(['identity', 'revoke', wallet], env);
      expect(revoke.stdout).toContain('attestation revoked');
      expect(revoke.stdout).toContain('verified human: no');
      for (const argv of [['identity', 'verify', '0x12'], ['identity', 'bless', wallet], ['identity', 'revoke', wallet, '--reference', 'x']]) {
        const res = await runSvc(argv, env);
        expect(res.code, argv.join(' ')).toBe(1);
        expect(res.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
