// Identity linking over HTTP with real wallet agents (registered through POST /register with real
// EIP-191 signatures): codes, consents, approvals, unlinking, and every limit at its boundary.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ManualClock } from '../../src/core/clock.ts';
import { hashLinkCode, normalizeLinkCode } from '../../src/core/link-code.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { registerWallet } from '../support/agents.ts';

const clock = new ManualClock();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

const CODE_FORMAT = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;

interface Agent {
  id: string;
  key: string;
  /** Lowercase. */
  wallet: string;
  name: string;
}

// Registration through the shared helper: a real wallet proof signed by the server's (manual) clock.
async function registerAgent(name = 'bot'): Promise<Agent> {
  const agent = await registerWallet(server, undefined, name);
  return { id: agent.agentId, key: agent.key, wallet: agent.account.address.toLowerCase(), name };
}

async function registerAgents(n: number, prefix: string): Promise<Agent[]> {
  const agents: Agent[] = [];
  for (let i = 0; i < n; i++) agents.push(await registerAgent(`${prefix}-${i}`));
  return agents;
}

let idem = 0;
const post = (who: Agent | string, path: string, body?: unknown, opts: { idempotencyKey?: string } = {}) =>
  server.call('POST', `/api/agent/v1${path}`, {
    key: typeof who === 'string' ? who : who.key,
    body,
    idempotencyKey: opts.idempotencyKey ?? `idem-${++idem}`,
  });
const get = (who: Agent | string, path: string) => server.call('GET', `/api/agent/v1${path}`, { key: typeof who === 'string' ? who : who.key });

async function issueCode(root: Agent): Promise<string> {
  const res = await post(root, '/identity/link-code');
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.code as string;
}

async function consent(child: Agent, code: string): Promise<string> {
  const res = await post(child, '/identity/link-consent', { code });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.consent.id as string;
}

async function linkedCount(root: Agent): Promise<number> {
  return (await get(root, '/agents/me/identity')).body.identity.linkedCount;
}

describe('identity linking: the happy path', () => {
  it('links a child end to end: code, consent, pending list, approval, identity state of root and child', async () => {
    const root = await registerAgent('root');
    const child = await registerAgent('child');

    const before = await get(root, '/agents/me/identity');
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ walletAddress: root.wallet, identity: null, pendingConsents: [] });
    expect((await get(child, '/agents/me/identity')).body.identity).toBeNull();

    const issued = await post(root, '/identity/link-code');
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ rootWalletAddress: root.wallet, multiUse: true, ttlSeconds: 180 });
    expect(issued.body.code).toMatch(CODE_FORMAT);
    expect(Date.parse(issued.body.expiresAt) - Date.parse(issued.body.issuedAt)).toBe(180_000);
    expect(Date.parse(issued.body.issuedAt)).toBe(clock.now().getTime());
    const identityId = issued.body.identityId as string;

    const rootState = (await get(root, '/agents/me/identity')).body;
    expect(rootState.identity).toMatchObject({ id: identityId, role: 'root', rootWalletAddress: root.wallet, linkedCount: 0, linkedCap: 49 });
    expect(rootState.identity.members).toEqual([{ walletAddress: root.wallet, role: 'root', linkedAt: rootState.identity.createdAt }]);

    const submitted = await post(child, '/identity/link-consent', { code: issued.body.code });
    expect(submitted.status).toBe(201);
    expect(submitted.body.consent).toMatchObject({ identityId, rootWalletAddress: root.wallet, walletAddress: child.wallet, agentId: child.id, status: 'pending' });
    const consentId = submitted.body.consent.id as string;

    // The child waits: no identity yet, one pending consent.
    const waiting = (await get(child, '/agents/me/identity')).body;
    expect(waiting.identity).toBeNull();
    expect(waiting.pendingConsents).toEqual([{ id: consentId, identityId, rootWalletAddress: root.wallet, submittedAt: submitted.body.consent.submittedAt }]);

    // Consenting again while pending answers the same consent (200), not a second one.
    const again = await post(child, '/identity/link-consent', { code: issued.body.code });
    expect(again.status).toBe(200);
    expect(again.body.consent.id).toBe(consentId);

    const pending = await get(root, '/identity/pending-links');
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({
      identityId,
      consents: [{ id: consentId, walletAddress: child.wallet, agentId: child.id, agentName: 'child', submittedAt: submitted.body.consent.submittedAt }],
      nextCursor: null,
    });

    const approved = await post(root, '/identity/approve-links', { consentIds: [consentId] });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ identityId, linkedCount: 1, linkedCap: 49 });
    expect(approved.body.approved).toEqual([{ consentId, walletAddress: child.wallet, linkedAt: clock.now().toISOString() }]);

    const childState = (await get(child, '/agents/me/identity')).body;
    expect(childState.identity).toMatchObject({ id: identityId, role: 'member', rootWalletAddress: root.wallet, linkedCount: 1 });
    expect(childState.identity.members.map((m: { walletAddress: string; role: string }) => [m.walletAddress, m.role])).toEqual([
      [root.wallet, 'root'],
      [child.wallet, 'member'],
    ]);
    expect(childState.pendingConsents).toEqual([]);
    expect((await get(root, '/agents/me/identity')).body.identity.linkedCount).toBe(1);
    expect((await get(root, '/identity/pending-links')).body.consents).toEqual([]);

    // identityOf, for one-human-one-vote: any case of either wallet gives the same identity.
    const linking = server.runtime.services.linking;
    expect(await linking.identityOf(privateKeyToAccount(generatePrivateKey()).address)).toBeNull();
    expect((await linking.identityOf(child.wallet.toUpperCase().replace('0X', '0x')))?.identityId).toBe(identityId);
    expect(await linking.identityOf(root.wallet)).toMatchObject({ identityId, role: 'root', rootWallet: root.wallet });
  });

  it('stores the code only hashed, and an Idempotency-Key replay does not show it again', async () => {
    const root = await registerAgent('root');
    const first = await post(root, '/identity/link-code', {}, { idempotencyKey: 'code-once' });
    const replay = await post(root, '/identity/link-code', {}, { idempotencyKey: 'code-once' });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual({ ...first.body, code: null });

    const db = server.runtime.database.db;
    const rows = await db.selectFrom('identity_link_codes').selectAll().where('identity_id', '=', first.body.identityId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.code_hash).toBe(hashLinkCode(normalizeLinkCode(first.body.code)!));
    const stored = JSON.stringify([rows, await db.selectFrom('idempotency_records').selectAll().execute()]);
    expect(stored).not.toContain(first.body.code);
    expect(stored).not.toContain(normalizeLinkCode(first.body.code));
  });

  it('a link code is multi-use, and accepts any case, spaces or no hyphens', async () => {
    const root = await registerAgent('root');
    const children = await registerAgents(3, 'kid');
    const code = await issueCode(root);
    const typed = [code, code.toLowerCase().replaceAll('-', ''), code.replaceAll('-', ' ')];
    const ids: string[] = [];
    for (const [i, child] of children.entries()) ids.push(await consent(child, typed[i]!));
    expect(new Set(ids).size).toBe(3);

    const approved = await post(root, '/identity/approve-links', { consentIds: ids });
    expect(approved.status).toBe(200);
    expect(approved.body.approved.map((a: { walletAddress: string }) => a.walletAddress)).toEqual(children.map((c) => c.wallet));
    expect(approved.body.linkedCount).toBe(3);
  });
});

describe('identity linking: link codes', () => {
  it('a code is valid 180 s: accepted 1 ms before, refused from 180 s on with 410 LINK_CODE_EXPIRED', async () => {
    const root = await registerAgent('root');
    const [early, late] = await registerAgents(2, 'ttl');
    const code = await issueCode(root);

    clock.advance(180_000 - 1);
    expect((await post(early!, '/identity/link-consent', { code })).status).toBe(201);

    clock.advance(1);
    const expired = await post(late!, '/identity/link-consent', { code });
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe('LINK_CODE_EXPIRED');
    expect(expired.headers['content-type']).toContain('application/problem+json');

    // A fresh code works again; consents given in time stay approvable after the code expired.
    expect((await post(late!, '/identity/link-consent', { code: await issueCode(root) })).status).toBe(201);
    const pending = (await get(root, '/identity/pending-links')).body.consents;
    expect(pending.map((c: { walletAddress: string }) => c.walletAddress)).toEqual([early!.wallet, late!.wallet]);
    expect((await post(root, '/identity/approve-links', { consentIds: pending.map((c: { id: string }) => c.id) })).body.linkedCount).toBe(2);
  });

  it('an unknown code answers 404 LINK_CODE_UNKNOWN; a malformed one 400 INVALID_PAYLOAD', async () => {
    const child = await registerAgent('child');
    const unknown = await post(child, '/identity/link-consent', { code: 'ABCD-EFGH-JKMN' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('LINK_CODE_UNKNOWN');

    for (const code of ['hello', 'ABCD-EFGH-JKM', 'ABCD-EFGH-JKMNP', 'ABCD-EFGH-JKMU', '']) {
      const bad = await post(child, '/identity/link-consent', { code });
      expect(bad.status, code).toBe(400);
      expect(bad.body).toMatchObject({ code: 'INVALID_PAYLOAD' });
      expect(bad.body.errors[0].path).toBe('body.code');
    }
    const extra = await post(child, '/identity/link-consent', { code: 'ABCD-EFGH-JKMN', wallet: '0x' });
    expect(extra.body.errors[0].path).toBe('body.wallet');
    const codeBody = await post(child, '/identity/link-code', { anything: 1 });
    expect(codeBody.body.code).toBe('INVALID_PAYLOAD');
  });

  it('writes need an Idempotency-Key', async () => {
    const root = await registerAgent('root');
    const res = await server.call('POST', '/api/agent/v1/identity/link-code', { key: root.key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
  });

  it('refuses the root consenting to its own code, and wallets already in an identity (409)', async () => {
    const rootA = await registerAgent('root-a');
    const rootB = await registerAgent('root-b');
    const member = await registerAgent('member');
    const codeA = await issueCode(rootA);
    const codeB = await issueCode(rootB);

    const self = await post(rootA, '/identity/link-consent', { code: codeA });
    expect(self.status).toBe(409);
    expect(self.body.code).toBe('LINK_TO_OWN_IDENTITY');

    // The root of another identity is in an identity too.
    const otherRoot = await post(rootB, '/identity/link-consent', { code: codeA });
    expect(otherRoot.status).toBe(409);
    expect(otherRoot.body).toMatchObject({ code: 'WALLET_ALREADY_LINKED', walletAddresses: [rootB.wallet] });

    await post(rootA, '/identity/approve-links', { consentIds: [await consent(member, codeA)] });
    for (const code of [codeB, codeA]) {
      const linked = await post(member, '/identity/link-consent', { code });
      expect(linked.status).toBe(409);
      expect(linked.body.code).toBe('WALLET_ALREADY_LINKED');
    }

    // A linked member cannot issue codes.
    const memberCode = await post(member, '/identity/link-code');
    expect(memberCode.status).toBe(403);
    expect(memberCode.body.code).toBe('NOT_IDENTITY_ROOT');
  });
});

describe('identity linking: approvals', () => {
  it('only the root approves or lists; approving a consent of another identity changes nothing', async () => {
    const rootA = await registerAgent('root-a');
    const rootB = await registerAgent('root-b');
    const [memberA, childA, childB] = await registerAgents(3, 'c');
    const codeA = await issueCode(rootA);
    await post(rootA, '/identity/approve-links', { consentIds: [await consent(memberA!, codeA)] });
    const consentA = await consent(childA!, codeA);
    const consentB = await consent(childB!, await issueCode(rootB));

    const byMember = await post(memberA!, '/identity/approve-links', { consentIds: [consentA] });
    expect(byMember.status).toBe(403);
    expect(byMember.body.code).toBe('NOT_IDENTITY_ROOT');
    const listByMember = await get(memberA!, '/identity/pending-links');
    expect(listByMember.status).toBe(403);
    expect(listByMember.body.code).toBe('NOT_IDENTITY_ROOT');

    // A wallet in no identity has nothing to approve and nothing pending.
    const loner = await registerAgent('loner');
    const byLoner = await post(loner, '/identity/approve-links', { consentIds: [consentA] });
    expect(byLoner.status).toBe(404);
    expect(byLoner.body.code).toBe('IDENTITY_NOT_FOUND');
    expect((await get(loner, '/identity/pending-links')).body).toEqual({ identityId: null, consents: [], nextCursor: null });

    // Root B approving A's consent: not found for B, and all or nothing with B's own consent.
    const foreign = await post(rootB, '/identity/approve-links', { consentIds: [consentB, consentA] });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'LINK_CONSENT_NOT_FOUND', consentIds: [consentA] });
    const unknownId = randomUUID();
    const unknown = await post(rootB, '/identity/approve-links', { consentIds: [unknownId] });
    expect(unknown.body).toMatchObject({ code: 'LINK_CONSENT_NOT_FOUND', consentIds: [unknownId] });
    expect((await get(childB!, '/agents/me/identity')).body.identity).toBeNull();
    expect(await linkedCount(rootB)).toBe(0);

    // Approving twice: the second call finds the consent decided.
    expect((await post(rootA, '/identity/approve-links', { consentIds: [consentA] })).status).toBe(200);
    const twice = await post(rootA, '/identity/approve-links', { consentIds: [consentA] });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: 'LINK_CONSENT_NOT_PENDING', consents: [{ id: consentA, status: 'approved' }] });

    const repeated = await post(rootB, '/identity/approve-links', { consentIds: [consentB, consentB] });
    expect(repeated.status).toBe(400);
    expect(repeated.body.errors[0].path).toBe('body.consentIds');
  });

  it('a child that joins one identity loses its pending consents to others', async () => {
    const rootA = await registerAgent('root-a');
    const rootB = await registerAgent('root-b');
    const child = await registerAgent('child');
    const toA = await consent(child, await issueCode(rootA));
    const toB = await consent(child, await issueCode(rootB));
    expect((await get(child, '/agents/me/identity')).body.pendingConsents).toHaveLength(2);

    expect((await post(rootA, '/identity/approve-links', { consentIds: [toA] })).status).toBe(200);
    expect((await get(rootB, '/identity/pending-links')).body.consents).toEqual([]);
    const late = await post(rootB, '/identity/approve-links', { consentIds: [toB] });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: 'LINK_CONSENT_NOT_PENDING', consents: [{ id: toB, status: 'cancelled' }] });
  });

  it('limits at their boundaries: pages of 1..100, approve 20 ok / 21 refused, cap 49 ok / 50th refused, unlink 49 ok / 50 refused', async () => {
    const root = await registerAgent('root');
    const children = await registerAgents(50, 'kid');
    const code = await issueCode(root);
    for (const child of children) await consent(child, code);

    // Pending consents, oldest first, in pages.
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await get(root, `/identity/pending-links?limit=20${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      ids.push(...page.body.consents.map((c: { id: string }) => c.id));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    const all = (await get(root, '/identity/pending-links?limit=100')).body;
    expect(all.consents.map((c: { walletAddress: string }) => c.walletAddress)).toEqual(children.map((c) => c.wallet));
    expect(all.consents.map((c: { id: string }) => c.id)).toEqual(ids);
    expect(all.nextCursor).toBeNull();
    for (const q of ['limit=0', 'limit=101', 'limit=x', `cursor=${randomUUID()}`, 'cursor=nope', 'other=1']) {
      const bad = await get(root, `/identity/pending-links?${q}`);
      expect(bad.status, q).toBe(400);
      expect(bad.body.code, q).toBe('INVALID_QUERY');
    }

    // approve-links: 21 ids refused before anything happens, 20 accepted.
    const tooMany = await post(root, '/identity/approve-links', { consentIds: ids.slice(0, 21) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ code: 'INVALID_PAYLOAD' });
    expect(tooMany.body.errors[0].path).toBe('body.consentIds');
    expect(await linkedCount(root)).toBe(0);
    expect((await post(root, '/identity/approve-links', { consentIds: [] })).body.code).toBe('INVALID_PAYLOAD');

    const first = await post(root, '/identity/approve-links', { consentIds: ids.slice(0, 20) });
    expect(first.status).toBe(200);
    expect(first.body.approved).toHaveLength(20);
    expect(first.body.linkedCount).toBe(20);
    expect((await post(root, '/identity/approve-links', { consentIds: ids.slice(20, 40) })).body.linkedCount).toBe(40);

    // 40 + 10 would be 50 linked addresses: refused whole, nobody of the ten linked.
    const over = await post(root, '/identity/approve-links', { consentIds: ids.slice(40, 50) });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ code: 'IDENTITY_LINK_CAP_REACHED', linkedCap: 49, linkedCount: 40, requested: 10 });
    expect(await linkedCount(root)).toBe(40);
    expect((await get(children[40]!, '/agents/me/identity')).body.identity).toBeNull();

    // 49 is the cap: accepted; the 50th is refused.
    expect((await post(root, '/identity/approve-links', { consentIds: ids.slice(40, 49) })).body.linkedCount).toBe(49);
    const fiftieth = await post(root, '/identity/approve-links', { consentIds: [ids[49]!] });
    expect(fiftieth.status).toBe(409);
    expect(fiftieth.body).toMatchObject({ code: 'IDENTITY_LINK_CAP_REACHED', linkedCount: 49, requested: 1 });
    const state = (await get(root, '/agents/me/identity')).body.identity;
    expect(state.linkedCount).toBe(49);
    expect(state.members).toHaveLength(50); // the root plus 49 linked addresses

    // unlink: 50 addresses refused before anything happens, 49 accepted.
    const linkedWallets = children.slice(0, 49).map((c) => c.wallet);
    const fifty = await post(root, '/identity/unlink', { walletAddresses: [...linkedWallets, children[49]!.wallet] });
    expect(fifty.status).toBe(400);
    expect(fifty.body.errors[0].path).toBe('body.walletAddresses');
    expect(await linkedCount(root)).toBe(49);

    const unlinked = await post(root, '/identity/unlink', { walletAddresses: linkedWallets });
    expect(unlinked.status).toBe(200);
    expect(unlinked.body).toMatchObject({ identityId: state.id, dissolved: false, linkedCount: 0 });
    expect(unlinked.body.unlinked).toEqual(linkedWallets);
    expect((await get(children[0]!, '/agents/me/identity')).body.identity).toBeNull();

    // Room again: the 50th consent, still pending, is approved now.
    expect((await post(root, '/identity/approve-links', { consentIds: [ids[49]!] })).body.linkedCount).toBe(1);
  });
});

describe('identity linking: concurrency', () => {
  it('concurrent first codes of one wallet make one identity; concurrent approvals of one child link it once', async () => {
    const root = await registerAgent('root');
    const codes = await Promise.all([post(root, '/identity/link-code'), post(root, '/identity/link-code'), post(root, '/identity/link-code')]);
    expect(codes.map((c) => c.status)).toEqual([201, 201, 201]);
    expect(new Set(codes.map((c) => c.body.identityId)).size).toBe(1);

    const other = await registerAgent('other-root');
    const child = await registerAgent('child');
    const toA = await consent(child, codes[0]!.body.code);
    const toB = await consent(child, await issueCode(other));
    const results = await Promise.all([
      post(root, '/identity/approve-links', { consentIds: [toA] }),
      post(other, '/identity/approve-links', { consentIds: [toB] }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(['WALLET_ALREADY_LINKED', 'LINK_CONSENT_NOT_PENDING']).toContain(results.find((r) => r.status === 409)!.body.code);
    const winner = results.findIndex((r) => r.status === 200);
    expect((await get(child, '/agents/me/identity')).body.identity.rootWalletAddress).toBe([root, other][winner]!.wallet);
  });
});

describe('identity linking: unlinking', () => {
  it('a member unlinks itself only; the root unlinks members, and leaves only when none stays', async () => {
    const root = await registerAgent('root');
    const [a, b, c] = await registerAgents(3, 'm');
    const code = await issueCode(root);
    const consents = [await consent(a!, code), await consent(b!, code), await consent(c!, code)];
    await post(root, '/identity/approve-links', { consentIds: consents });

    const other = await post(a!, '/identity/unlink', { walletAddresses: [b!.wallet] });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('NOT_IDENTITY_ROOT');
    const itself = await post(a!, '/identity/unlink', { walletAddresses: [a!.wallet.toUpperCase().replace('0X', '0x')] });
    expect(itself.status).toBe(200);
    expect(itself.body).toMatchObject({ unlinked: [a!.wallet], dissolved: false, linkedCount: 2 });
    const gone = await post(a!, '/identity/unlink', { walletAddresses: [a!.wallet] });
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('IDENTITY_NOT_FOUND');

    // All or nothing: one address outside the identity refuses the call.
    const mixed = await post(root, '/identity/unlink', { walletAddresses: [b!.wallet, a!.wallet] });
    expect(mixed.status).toBe(404);
    expect(mixed.body).toMatchObject({ code: 'WALLET_NOT_LINKED', walletAddresses: [a!.wallet] });
    expect(await linkedCount(root)).toBe(2);

    const dup = await post(root, '/identity/unlink', { walletAddresses: [b!.wallet, b!.wallet.toUpperCase().replace('0X', '0x')] });
    expect(dup.status).toBe(400);
    expect(dup.body.code).toBe('INVALID_PAYLOAD');

    const rootLeaves = await post(root, '/identity/unlink', { walletAddresses: [root.wallet, b!.wallet] });
    expect(rootLeaves.status).toBe(409);
    expect(rootLeaves.body).toMatchObject({ code: 'IDENTITY_HAS_MEMBERS', linkedCount: 2 });
    expect(await linkedCount(root)).toBe(2);

    // The root leaving with its last members dissolves the identity: its codes stop working.
    const pendingChild = await registerAgent('pending');
    await consent(pendingChild, code);
    const dissolved = await post(root, '/identity/unlink', { walletAddresses: [b!.wallet, c!.wallet, root.wallet] });
    expect(dissolved.status).toBe(200);
    expect(dissolved.body).toMatchObject({ dissolved: true, linkedCount: 0 });
    expect((await get(root, '/agents/me/identity')).body.identity).toBeNull();
    expect((await get(pendingChild, '/agents/me/identity')).body.pendingConsents).toEqual([]);
    expect((await post(a!, '/identity/link-consent', { code })).body.code).toBe('LINK_CODE_UNKNOWN');
    expect(await server.runtime.services.linking.identityOf(b!.wallet)).toBeNull();

    // Its wallets are free: the old root may join the identity of a former member.
    const fresh = await post(c!, '/identity/link-code');
    expect(fresh.body.identityId).not.toBe(dissolved.body.identityId);
    expect((await post(root, '/identity/link-consent', { code: fresh.body.code })).status).toBe(201);
  });
});

describe('identity linking: who may take part', () => {
  it('a key without agent, or an agent without a bound wallet, gets 409 WALLET_NOT_BOUND everywhere', async () => {
    const agentless = await server.key('read-only');
    const db = server.runtime.database.db;
    const agentId = randomUUID();
    await db.insertInto('agents').values({ id: agentId, name: 'mail-only', wallet_address: null, registration_path: 'email', created_at: clock.now() }).execute();
    const walletless = (await server.runtime.services.keys.create({ tier: 'execute', scopes: [], agentId })).key;

    for (const key of [agentless, walletless]) {
      const calls = [
        await get(key, '/agents/me/identity'),
        await get(key, '/identity/pending-links'),
        await post(key, '/identity/link-code'),
        await post(key, '/identity/link-consent', { code: 'ABCD-EFGH-JKMN' }),
        await post(key, '/identity/approve-links', { consentIds: [randomUUID()] }),
        await post(key, '/identity/unlink', { walletAddresses: ['0x' + '1'.repeat(40)] }),
      ];
      for (const res of calls) {
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('WALLET_NOT_BOUND');
      }
    }
    expect((await server.call('GET', '/api/agent/v1/agents/me/identity')).body.code).toBe('API_KEY_REQUIRED');
  });

  it('a read-only key of a wallet agent is enough to link', async () => {
    const root = await registerAgent('root');
    const child = await registerAgent('child');
    const readOnly = (await server.runtime.services.keys.create({ tier: 'read-only', scopes: [], agentId: child.id })).key;
    const res = await post(readOnly, '/identity/link-consent', { code: await issueCode(root) });
    expect(res.status).toBe(201);
    expect(res.body.consent.walletAddress).toBe(child.wallet);
  });
});
