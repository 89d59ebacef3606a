// Exactly once under an Idempotency-Key for the identity and key writes: each records its effect in the transaction
// that makes it (with the proof's nonce, the human check's challenge and the mail it queues), so a crash between that
// commit and the stored answer leaves a retry an answer to rebuild — secrets null — and nothing to run again. Before,
// the retry ran the write a second time (a second agent, key, link or mail) or failed on the proof its first run spent.
import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { WALLET_SCOPES } from '../../src/core/entitlement.ts';
import { humanCheckToken, idemKey, keyless, newAccount, newClient, registerWallet, walletProof } from '../support/agents.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';

const V1 = '/api/agent/v1';
const clock = new ManualClock();
let server: TestServer;
/** Idempotency-Keys whose request dies once at that point of its life. */
const dieInsideEffect = new Set<string>();
const dieBeforeAnswerStored = new Set<string>();

beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: { REGISTRATION_PATHS: 'anonymous,email,wallet,claim', TRUST_PROXY: 'true', HUMAN_CHECK_POW_BITS: '4' },
    idempotencyFaults: {
      duringEffect: (_owner, key) => {
        if (dieInsideEffect.delete(key)) throw new Error('simulated crash inside the effect transaction');
      },
      beforeComplete: (_owner, key) => {
        if (dieBeforeAnswerStored.delete(key)) throw new Error('simulated crash before the answer is stored');
      },
    },
  });
});
afterAll(async () => server?.close());

const count = async (from: RawBuilder<unknown>): Promise<number> => {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${from}`.execute(server.runtime.database.db);
  return rows[0]!.n;
};

let serial = 0;
const unique = (label: string) => `eo-${label}-${++serial}`;

/** One write, prepared afresh: the same request each time it is sent, and the rows its effect makes. */
interface Prepared {
  send(idempotencyKey: string, o?: { unchecked?: boolean }): Promise<CallResult>;
  /** Row counts the effect changes; one run changes them by the case's `effect`. */
  rows(): Promise<Record<string, number>>;
  /** What every answer says (the effect it describes). */
  answer: Record<string, unknown>;
}

interface Case {
  name: string;
  status: 200 | 201;
  effect: Record<string, number>;
  /** Where the answer holds a secret: shown by the run itself, null in a replay. */
  secret?: string[];
  prepare(): Promise<Prepared>;
}

const post = (url: string, o: { key?: string; headers?: Record<string, string>; body?: unknown }) => (idempotencyKey: string, extra: { unchecked?: boolean } = {}) =>
  server.call('POST', `${V1}${url}`, { ...o, idempotencyKey, ...extra });

const registration = (body: Record<string, unknown>, headers = newClient()) => post('/register', { headers, body });

/** Agents and keys of a registration, found by what names it (its wallet, email or name). */
const agentsWhere = (where: RawBuilder<unknown>) => ({
  agents: () => count(sql`agents WHERE ${where}`),
  keys: () => count(sql`api_keys WHERE agent_id IN (SELECT id FROM agents WHERE ${where})`),
});

const mailsTo = (email: string) => ({
  links: () => count(sql`email_links WHERE email = ${email}`),
  mails: () => count(sql`mail_outbox WHERE to_address = ${email}`),
});

const countAll = async (counters: Record<string, () => Promise<number>>) =>
  Object.fromEntries(await Promise.all(Object.entries(counters).map(async ([name, n]) => [name, await n()] as const)));

const keysOf = (agentId: string) => ({
  keys: () => count(sql`api_keys WHERE agent_id = ${agentId}`),
  revoked: () => count(sql`api_keys WHERE agent_id = ${agentId} AND status = 'revoked'`),
});

async function anonymousAgent() {
  const headers = newClient();
  const res = await keyless(server, `${V1}/register`, { kind: 'anonymous', name: unique('anon'), humanCheckToken: await humanCheckToken(server, headers) }, { headers });
  expect(res.status, res.text).toBe(201);
  return { agentId: res.body.agent.id as string, key: res.body.apiKey.key as string };
}

async function linkCode(root: { key: string }): Promise<string> {
  const res = await post('/identity/link-code', { key: root.key })(idemKey('code'));
  expect(res.status, res.text).toBe(201);
  return res.body.code;
}

async function consent(child: { key: string }, code: string): Promise<string> {
  const res = await post('/identity/link-consent', { key: child.key, body: { code } })(idemKey('consent'));
  expect(res.status, res.text).toBe(201);
  return res.body.consent.id;
}

const CASES: Case[] = [
  {
    name: 'POST /register (wallet)',
    status: 201,
    effect: { agents: 1, keys: 1 },
    secret: ['apiKey', 'key'],
    async prepare() {
      const account = newAccount();
      const name = unique('wallet');
      const wallet = account.address.toLowerCase();
      return {
        send: registration({ kind: 'wallet', name, ...(await walletProof(server, 'agent-register', account, { agentName: name })) }),
        rows: () => countAll(agentsWhere(sql`wallet_address = ${wallet}`)),
        answer: { agent: { name, walletAddress: wallet, registrationPath: 'wallet' }, apiKey: { status: 'active', tier: 'execute' }, emailLink: null },
      };
    },
  },
  {
    name: 'POST /register (anonymous)',
    status: 201,
    effect: { agents: 1, keys: 1 },
    secret: ['apiKey', 'key'],
    async prepare() {
      const name = unique('anon');
      const headers = newClient();
      return {
        send: registration({ kind: 'anonymous', name, humanCheckToken: await humanCheckToken(server, headers) }, headers),
        rows: () => countAll(agentsWhere(sql`name = ${name}`)),
        answer: { agent: { name, registrationPath: 'anonymous' }, apiKey: { status: 'active', tier: 'read-only' }, emailLink: null },
      };
    },
  },
  {
    name: 'POST /register (email)',
    status: 201,
    effect: { agents: 1, keys: 1, links: 1, mails: 1 },
    secret: ['apiKey', 'key'],
    async prepare() {
      const email = `${unique('email')}@example.com`;
      return {
        send: registration({ kind: 'email', name: unique('email'), email }),
        rows: () => countAll({ ...agentsWhere(sql`email = ${email}`), ...mailsTo(email) }),
        answer: { agent: { email, registrationPath: 'email' }, apiKey: { status: 'dormant' }, emailLink: { purpose: 'verify-email', sentTo: email } },
      };
    },
  },
  {
    name: 'POST /register (claim)',
    status: 201,
    effect: { agents: 1, keys: 1, links: 1, mails: 1 },
    secret: ['apiKey', 'key'],
    async prepare() {
      const account = newAccount();
      const name = unique('claim');
      const ownerEmail = `${unique('owner')}@example.com`;
      const wallet = account.address.toLowerCase();
      return {
        send: registration({ kind: 'claim', name, ownerEmail, ...(await walletProof(server, 'agent-register', account, { agentName: name })) }),
        rows: () => countAll({ ...agentsWhere(sql`wallet_address = ${wallet}`), ...mailsTo(ownerEmail) }),
        answer: { agent: { walletAddress: wallet, registrationPath: 'claim' }, emailLink: { purpose: 'claim', sentTo: ownerEmail } },
      };
    },
  },
  {
    name: 'POST /email-links/resend',
    status: 200,
    effect: { links: 1, mails: 1 },
    async prepare() {
      const email = `${unique('resend')}@example.com`;
      expect((await keyless(server, `${V1}/register`, { kind: 'email', name: unique('resend'), email })).status).toBe(201);
      return { send: post('/email-links/resend', { headers: newClient(), body: { email } }), rows: () => countAll(mailsTo(email)), answer: { status: 'accepted' } };
    },
  },
  {
    name: 'POST /keys/:keyId/rotate',
    status: 201,
    effect: { keys: 1, revoked: 1 },
    secret: ['apiKey', 'key'],
    async prepare() {
      // Another key of the agent rotates this one: a key that rotates itself is revoked and cannot call again.
      const agent = await registerWallet(server, undefined, unique('rotate'));
      const other = await server.runtime.services.keys.create({ tier: 'execute', scopes: WALLET_SCOPES, agentId: agent.agentId });
      return {
        send: post(`/keys/${other.record.id}/rotate`, { key: agent.key }),
        rows: () => countAll(keysOf(agent.agentId)),
        answer: { revokedKeyId: other.record.id, apiKey: { status: 'active', tier: 'execute' } },
      };
    },
  },
  {
    name: 'POST /keys/recover',
    status: 201,
    effect: { keys: 1, revoked: 1 },
    secret: ['apiKey', 'key'],
    async prepare() {
      const agent = await registerWallet(server, undefined, unique('recover'));
      return {
        send: post('/keys/recover', { headers: newClient(), body: await walletProof(server, 'agent-key-recovery', agent.account) }),
        rows: () => countAll(keysOf(agent.agentId)),
        answer: { agentId: agent.agentId, revokedKeyIds: [agent.keyId] },
      };
    },
  },
  {
    name: 'POST /agents/me/bind-email',
    status: 200,
    effect: { links: 1, mails: 1 },
    async prepare() {
      const agent = await registerWallet(server, undefined, unique('bind-email'));
      const email = `${unique('bound')}@example.com`;
      return { send: post('/agents/me/bind-email', { key: agent.key, body: { email } }), rows: () => countAll(mailsTo(email)), answer: { status: 'pending', sentTo: email } };
    },
  },
  {
    name: 'POST /agents/me/bind-wallet',
    status: 200,
    effect: { agents: 1, grants: 1 },
    async prepare() {
      const agent = await anonymousAgent();
      const account = newAccount();
      const wallet = account.address.toLowerCase();
      return {
        send: post('/agents/me/bind-wallet', { key: agent.key, body: await walletProof(server, 'agent-bind-wallet', account, { agentId: agent.agentId }) }),
        rows: () =>
          countAll({
            agents: () => count(sql`agents WHERE wallet_address = ${wallet}`),
            grants: () => count(sql`ledger_operations WHERE source = ${`signup-grant:${agent.agentId}#0`}`),
          }),
        answer: { walletAddress: wallet, tier: 'execute' },
      };
    },
  },
  {
    name: 'POST /identity/link-code',
    status: 201,
    effect: { codes: 1, identities: 1 },
    secret: ['code'],
    async prepare() {
      const root = await registerWallet(server, undefined, unique('root'));
      const wallet = root.account.address.toLowerCase();
      return {
        send: post('/identity/link-code', { key: root.key }),
        rows: () =>
          countAll({
            codes: () => count(sql`identity_link_codes WHERE issued_by_agent_id = ${root.agentId}`),
            identities: () => count(sql`identities WHERE root_wallet = ${wallet}`),
          }),
        answer: { rootWalletAddress: wallet, multiUse: true },
      };
    },
  },
  {
    name: 'POST /identity/link-consent',
    status: 201,
    effect: { consents: 1 },
    async prepare() {
      const code = await linkCode(await registerWallet(server, undefined, unique('root')));
      const child = await registerWallet(server, undefined, unique('child'));
      const wallet = child.account.address.toLowerCase();
      return {
        send: post('/identity/link-consent', { key: child.key, body: { code } }),
        rows: () => countAll({ consents: () => count(sql`identity_link_consents WHERE wallet_address = ${wallet}`) }),
        answer: { consent: { walletAddress: wallet, agentId: child.agentId, status: 'pending' } },
      };
    },
  },
  {
    name: 'POST /identity/approve-links',
    status: 200,
    effect: { members: 1, approved: 1 },
    async prepare() {
      const root = await registerWallet(server, undefined, unique('root'));
      const child = await registerWallet(server, undefined, unique('child'));
      const consentId = await consent(child, await linkCode(root));
      const wallet = child.account.address.toLowerCase();
      return {
        send: post('/identity/approve-links', { key: root.key, body: { consentIds: [consentId] } }),
        rows: () =>
          countAll({
            members: () => count(sql`identity_members WHERE wallet_address = ${wallet}`),
            approved: () => count(sql`identity_link_consents WHERE id = ${consentId} AND status = 'approved'`),
          }),
        answer: { approved: [{ consentId, walletAddress: wallet }], linkedCount: 1 },
      };
    },
  },
  {
    name: 'POST /identity/unlink',
    status: 200,
    effect: { members: -1 },
    async prepare() {
      const root = await registerWallet(server, undefined, unique('root'));
      const child = await registerWallet(server, undefined, unique('child'));
      const consentId = await consent(child, await linkCode(root));
      expect((await post('/identity/approve-links', { key: root.key, body: { consentIds: [consentId] } })(idemKey('approve'))).status).toBe(200);
      const wallet = child.account.address.toLowerCase();
      return {
        send: post('/identity/unlink', { key: root.key, body: { walletAddresses: [child.account.address] } }),
        rows: () => countAll({ members: () => count(sql`identity_members WHERE wallet_address = ${wallet}`) }),
        answer: { unlinked: [wallet], dissolved: false, linkedCount: 0 },
      };
    },
  },
];

const changes = (before: Record<string, number>, after: Record<string, number>) => Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - before[k]!]));
const none = (effect: Record<string, number>) => Object.fromEntries(Object.keys(effect).map((k) => [k, 0]));
const at = (body: unknown, path: readonly string[]): unknown => path.reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], body);

/** The JSON shape of a body: every leaf replaced by its type (null stays null). */
const shapeOf = (v: unknown): unknown =>
  v === null ? null : Array.isArray(v) ? v.map(shapeOf) : typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shapeOf(x)])) : typeof v;

function withSecretNull(body: unknown, path: readonly string[]): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  const parent = at(copy, path.slice(0, -1)) as Record<string, unknown>;
  parent[path[path.length - 1]!] = null;
  return copy;
}

async function expectCrashed(res: CallResult): Promise<void> {
  expect(res.status, res.text).toBe(500);
  expect(res.body.code).toBe('INTERNAL_ERROR');
}

describe.each(CASES)('$name under an Idempotency-Key', (c) => {
  let ran: CallResult | undefined;

  it('a crash inside the effect transaction leaves no effect: the retry runs it once, as a new request', async () => {
    const p = await c.prepare();
    const before = await p.rows();
    const key = idemKey('inside');
    dieInsideEffect.add(key);
    await expectCrashed(await p.send(key, { unchecked: true }));
    expect(dieInsideEffect.has(key), 'the effect was recorded inside its transaction').toBe(false);
    expect(changes(before, await p.rows())).toEqual(none(c.effect));

    ran = await p.send(key);
    expect(ran.status, ran.text).toBe(c.status);
    expect(ran.headers['idempotent-replayed']).toBeUndefined();
    expect(ran.body).toMatchObject(p.answer);
    if (c.secret) expect(at(ran.body, c.secret)).toEqual(expect.any(String));
    expect(changes(before, await p.rows())).toEqual(c.effect);
  });

  it('a crash after the effect committed: the retry replays that one effect, secrets null, before and after the lease', async () => {
    const p = await c.prepare();
    const before = await p.rows();
    const key = idemKey('after');
    dieBeforeAnswerStored.add(key);
    await expectCrashed(await p.send(key, { unchecked: true }));
    expect(changes(before, await p.rows())).toEqual(c.effect);

    const retry = await p.send(key);
    expect(retry.status, retry.text).toBe(c.status);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toMatchObject(p.answer);
    if (c.secret) expect(at(retry.body, c.secret)).toBeNull();
    // The same shape as the answer of a run, its secret redacted as an ordinary stored replay redacts it.
    expect(ran, 'the first test of this case ran the write').toBeDefined();
    expect(shapeOf(retry.body)).toEqual(shapeOf(c.secret ? withSecretNull(ran!.body, c.secret) : ran!.body));

    clock.advance(61_000); // past the lease after which a crashed claim used to be run again
    const late = await p.send(key);
    expect(late.status).toBe(c.status);
    expect(late.headers['idempotent-replayed']).toBe('true');
    expect(late.body).toEqual(retry.body);
    expect(changes(before, await p.rows())).toEqual(c.effect);
    const record = await server.runtime.database.db.selectFrom('idempotency_records').select(['state', 'effect_ref']).where('idem_key', '=', key).executeTakeFirstOrThrow();
    expect(record).toEqual({ state: 'done', effect_ref: expect.any(String) });
  });
});
