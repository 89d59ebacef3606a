// A newcomer finds the way in from the service itself: each closed registration path in GET /mcp-discovery says the
// REGISTRATION_PATHS value that opens it (keeping the paths already open), the document names the operator command
// that makes an agent, and POST /register's 403 on a closed path says the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.ts';

const V1 = '/api/agent/v1';
let closed: TestServer;
let emailOnly: TestServer;
beforeAll(async () => {
  [closed, emailOnly] = await Promise.all([startTestServer(), startTestServer({ env: { REGISTRATION_PATHS: 'email' } })]);
});
afterAll(async () => {
  await closed?.close();
  await emailOnly?.close();
});

const registrationOf = async (server: TestServer) => (await server.call('GET', `${V1}/mcp-discovery`)).body.registration;

describe('GET /mcp-discovery: how a closed path is opened', () => {
  it('gives every closed path the variable, its value and the start command that opens it', async () => {
    const doc = await registrationOf(closed);
    for (const p of doc.paths) {
      expect(p.status).toBe('closed');
      expect(p.howToOpen).toEqual({ variable: 'REGISTRATION_PATHS', value: p.kind, example: `REGISTRATION_PATHS=${p.kind} npm start` });
    }
    expect(doc.claim.howToOpen).toEqual({ variable: 'REGISTRATION_PATHS', value: 'claim', example: 'REGISTRATION_PATHS=claim npm start' });
  });

  it('keeps the paths already open in the value, and an open path has no howToOpen', async () => {
    const doc = await registrationOf(emailOnly);
    const byKind = Object.fromEntries(doc.paths.map((p: { kind: string }) => [p.kind, p]));
    expect(byKind.email).toMatchObject({ status: 'open', howToOpen: null });
    expect(byKind.wallet).toMatchObject({ status: 'closed', howToOpen: { variable: 'REGISTRATION_PATHS', value: 'email,wallet', example: 'REGISTRATION_PATHS=email,wallet npm start' } });
    expect(doc.claim.howToOpen.value).toBe('email,claim');
  });

  it('names the operator command that makes an agent without any path', async () => {
    const doc = await registrationOf(closed);
    expect(doc.operatorIssued.command).toBe('npx svc agents create --name <name>');
    expect(doc.operatorIssued.description).toMatch(/while svc runs/);
  });
});

describe('POST /register on a closed path', () => {
  it('answers 403 saying how the operator opens the path or makes an agent', async () => {
    const res = await closed.call('POST', `${V1}/register`, { idempotencyKey: 'closed-hint-1', body: { kind: 'email', name: 'newcomer', email: 'new@example.com' } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: 'FEATURE_DISABLED',
      reason: 'AGENT_REGISTRATION_CLOSED',
      howToOpen: { variable: 'REGISTRATION_PATHS', value: 'email', example: 'REGISTRATION_PATHS=email npm start' },
    });
    expect(res.body.detail).toContain('REGISTRATION_PATHS=email');
    expect(res.body.detail).toContain('svc agents create');
  });
});
