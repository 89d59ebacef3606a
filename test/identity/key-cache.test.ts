// The API-key cache (docs/identity.md "Key cache"): a key read once is answered from memory, and every change to a
// key holds from the next request: a change made through this process's services at once, a change made by another
// process when its commit's notification arrives (PostgreSQL), an expiry when the clock passes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ManualClock } from '../../src/core/clock.ts';
import { isProblemError } from '../../src/core/errors.ts';
import { onPostgres, startTestServer, type TestServer } from '../support/harness.ts';
import { waitFor } from '../support/wait.ts';
import { registerWallet } from '../support/agents.ts';

const ME = '/api/agent/v1/me';
const clock = new ManualClock(new Date('2026-11-24T10:00:00Z'));
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet' } });
});
afterAll(async () => {
  await server?.close();
});

const keys = () => server.runtime.services.keys;
const db = () => server.runtime.database.db;
const idOf = async (raw: string) => (await keys().authenticate(raw)).keyId;
const refusal = async (raw: string) => {
  try {
    await keys().authenticate(raw);
    return null;
  } catch (err) {
    if (isProblemError(err)) return err.code;
    throw err;
  }
};
/** Revokes behind the service's back, as another process would. */
const revokeInDatabase = (keyId: string) => db().updateTable('api_keys').set({ status: 'revoked', revoked_at: clock.now() }).where('id', '=', keyId).execute();

describe('the key cache', () => {
  it.skipIf(onPostgres)('answers a key read once from memory until something invalidates it', async () => {
    const { key: raw, keyId } = await registerWallet(server);
    expect(await refusal(raw)).toBeNull();
    // Embedded PGlite is one process: a change that bypasses the services is not signalled, so the cached row stands...
    await revokeInDatabase(keyId);
    expect(await refusal(raw)).toBeNull();
    expect((await server.call('GET', ME, { key: raw })).status).toBe(200);
    // ...until the cache is cleared, as the notification of another process's commit does.
    keys().invalidate();
    expect(await refusal(raw)).toBe('API_KEY_REVOKED');
  });

  it('refuses a key revoked through the service on the very next request', async () => {
    const { key: raw, keyId } = await registerWallet(server);
    expect((await server.call('GET', ME, { key: raw })).status).toBe(200);
    await keys().revoke(keyId);
    const res = await server.call('GET', ME, { key: raw });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('API_KEY_REVOKED');
  });

  it('does not keep a row read while an invalidation happened', async () => {
    const raw = await server.key('execute');
    const reading = keys().authenticate(raw);
    keys().invalidate();
    const keyId = (await reading).keyId;
    // Had the overlapping read been stored, this revocation (unsignalled on PGlite) would go unseen.
    await revokeInDatabase(keyId);
    if (!onPostgres) expect(await refusal(raw)).toBe('API_KEY_REVOKED');
    else await waitFor(async () => (await refusal(raw)) === 'API_KEY_REVOKED', { what: 'the revocation to reach the cache' });
  });

  it('judges expiry by the clock at each request, not at the time the key was cached', async () => {
    const issued = await keys().create({ tier: 'execute', scopes: ['markets:read'], expiresAt: new Date(clock.now().getTime() + 60_000) });
    expect(await refusal(issued.key)).toBeNull();
    clock.advance(60_000);
    expect(await refusal(issued.key)).toBe('API_KEY_EXPIRED');
  });

  it.runIf(onPostgres)('forgets a key another process revoked, at that process\'s commit', async () => {
    const raw = await server.key('execute');
    const keyId = await idOf(raw);
    expect(await refusal(raw)).toBeNull();
    const config = server.config.database;
    if (config.kind !== 'postgres') throw new Error('expected PostgreSQL');
    const other = new pg.Client({ connectionString: config.url });
    await other.connect();
    try {
      await other.query(`UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE id = $1`, [keyId]);
    } finally {
      await other.end();
    }
    await waitFor(async () => (await refusal(raw)) === 'API_KEY_REVOKED', { what: 'the other process\'s revocation to reach the cache', timeoutMs: 5_000 });
  });
});
