/**
 * What a web app visitor session reads without a key beyond the market reads (docs/web.md "Reading without a key"):
 * any wallet's public profile and P&L curve, which the profile page shows; a caller's own data stays closed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { randomAddress } from '../support/market-rows.ts';

describe('a visitor session and the public profile reads', () => {
  let server: TestServer;
  let cookie: string;
  const wallet = randomAddress();
  beforeAll(async () => {
    server = await startTestServer();
    cookie = `svc_visitor=${server.runtime.services.visitors.issue()}`;
    // One day of realized P&L, as the leaderboard updater records it (docs/leaderboard.md "P&L history").
    await server.runtime.database.db.insertInto('leaderboard_days').values({ wallet, day: 20_000, category: 'CRYPTO', realized: 2_500_000n, volume: 10_000_000n, trades: 2 }).execute();
  });
  afterAll(async () => {
    await server.close();
  });

  it("reads any wallet's profile and P&L curve without a key", async () => {
    const profile = await server.call('GET', `/api/agent/v1/profile/${wallet}`, { headers: { cookie } });
    expect(profile.status, profile.text).toBe(200);
    expect(profile.body).toMatchObject({ trackRecord: { marketsCreated: 0 }, reputation: null });
    const pnl = await server.call('GET', `/api/agent/v1/profile/${wallet}/pnl-history`, { headers: { cookie } });
    expect(pnl.status, pnl.text).toBe(200);
    expect(pnl.body).toMatchObject({ unit: 'usd_micro', points: [{ date: '2024-10-04', realizedPnl: '2500000', cumulativeRealizedPnl: '2500000' }] });
  });

  it('refuses the same profile reads without a key or a visitor session', async () => {
    for (const path of [`/api/agent/v1/profile/${wallet}`, `/api/agent/v1/profile/${wallet}/pnl-history`]) {
      const res = await server.call('GET', path, { unchecked: true });
      expect([res.status, res.body.code], path).toEqual([401, 'API_KEY_REQUIRED']);
    }
  });

  it("keeps a caller's own data closed to a visitor session: /me, its reputation trails", async () => {
    const closed = ['/api/agent/v1/me', '/api/agent/v1/reputation/me/events', `/api/v1/reputation/${wallet}/events`];
    for (const path of closed) {
      const res = await server.call('GET', path, { unchecked: true, headers: { cookie } });
      expect(res.status, `${path}: ${res.text}`).toBe(401);
    }
  });
});
