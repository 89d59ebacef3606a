// GET /portfolio/positions (docs/markets.md "Positions"): a wallet's LMSR positions from the indexer's projection, read
// with its key, its wallet session (the web app's Portfolio page) or the MCP tool — and never another wallet's. Real
// trades on anvil through the trade loop; the harness checks every answer against the OpenAPI document.
import { randomUUID } from 'node:crypto';
import { parseUnits } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { wadToDecimal } from '../../src/core/markets/price.ts';
import { newAccount, newClient } from '../support/agents.ts';
import { buyShares, funded, type Agent } from '../support/claims.ts';
import { signIn as signInAs } from '../support/sessions.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { createMarket } from '../support/markets.ts';

const A = '/api/agent/v1';
let server: TestServer;
let creator: Agent;
let buyer: Agent;
let market: string;
const bought = { yes: parseUnits('30', 6), no: parseUnits('5', 6) };

beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000' } });
  creator = await funded(server, 'positions-creator');
  buyer = await funded(server, 'positions-buyer');
  market = ((await createMarket(server, creator.key, creator.account, { question: 'Will the positions read list this?' })).market.address as string).toLowerCase();
  await server.runtime.services.indexer.syncNow();
  await buyShares(server, buyer, market, 0, bought.yes);
  await buyShares(server, buyer, market, 1, bought.no);
  await server.runtime.services.indexer.syncNow();
});
afterAll(async () => server?.close());

const withKey = (key: string, query = ''): Promise<CallResult> => server.call('GET', `${A}/portfolio/positions${query}`, { key });

const signIn = (account: PrivateKeyAccount): Promise<string> => signInAs(server, account);

const withSession = (cookie: string): Promise<CallResult> => server.call('GET', `${A}/portfolio/positions`, { headers: { ...newClient(), cookie } });

describe('GET /portfolio/positions', () => {
  it("lists the shares a wallet bought, with the market's question, current price, state and collateral", async () => {
    const res = await withKey(buyer.key);
    expect(res.status, res.text).toBe(200);
    expect(res.body.wallet).toBe(buyer.account.address);
    const detail = (await server.call('GET', `${A}/discover/markets/${market}`, { key: buyer.key })).body.market;
    const mine = res.body.positions.filter((p: { marketAddress: string }) => p.marketAddress.toLowerCase() === market);
    expect(mine).toHaveLength(2);
    for (const [i, shares] of [bought.yes, bought.no].entries()) {
      const price = detail.outcomes[i].price as string;
      expect(mine[i]).toEqual({
        chainId: server.config.chain.id,
        marketAddress: detail.address,
        question: 'Will the positions read list this?',
        state: 'open',
        outcomeIndex: i,
        outcomeLabel: ['Yes', 'No'][i],
        shares: shares.toString(),
        price,
        markValue: ((shares * priceWad(price)) / 10n ** 18n).toString(),
        collateral: { symbol: 'USDC', token: detail.collateral.token, decimals: 6 },
      });
    }
    // The price is the projection's exact price of that outcome: Yes was bought more, so it costs more.
    expect(Number(mine[0].price)).toBeGreaterThan(Number(mine[1].price));
    expect(res.body).toMatchObject({ hasMore: false, nextCursor: null, projection: { source: 'indexer' } });
  });

  it("never shows another wallet's positions: a wallet that did not trade sees none", async () => {
    const other = await funded(server, 'positions-other');
    const res = await withKey(other.key);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ wallet: other.account.address, positions: [], hasMore: false });
    // Nor does the input let it name one: an unknown query field is refused.
    const naming = await server.call('GET', `${A}/portfolio/positions?wallet=${buyer.account.address}`, { key: other.key, unchecked: true });
    expect([naming.status, naming.body.code]).toEqual([400, 'INVALID_QUERY']);
  });

  it("answers a wallet session as its key does (the Portfolio page's call), and a fresh wallet's session with nothing", async () => {
    const session = await withSession(await signIn(buyer.account));
    expect(session.status, session.text).toBe(200);
    const key = await withKey(buyer.key);
    expect(session.body.positions).toEqual(key.body.positions);

    const stranger = await withSession(await signIn(newAccount()));
    expect(stranger.status, stranger.text).toBe(200);
    expect(stranger.body.positions).toEqual([]);

    const nobody = await server.call('GET', `${A}/portfolio/positions`, { headers: newClient() });
    expect([nobody.status, nobody.body.code]).toEqual([401, 'API_KEY_REQUIRED']);
  });

  it('pages by cursor, newest market first, and refuses a cursor it did not give', async () => {
    const first = await withKey(buyer.key, '?limit=1');
    expect(first.status, first.text).toBe(200);
    expect(first.body.positions.map((p: { outcomeIndex: number }) => p.outcomeIndex)).toEqual([0]);
    expect(first.body.hasMore).toBe(true);
    const second = await withKey(buyer.key, `?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.positions.map((p: { outcomeIndex: number }) => p.outcomeIndex)).toEqual([1]);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });

    const bad = await withKey(buyer.key, '?cursor=nope');
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_QUERY']);
  });

  it('is 409 WALLET_NOT_BOUND for an agent without a wallet, and 403 FORBIDDEN for a key of no agent', async () => {
    const agentId = randomUUID();
    await server.runtime.database.db.insertInto('agents').values({ id: agentId, name: 'mail-only', wallet_address: null, registration_path: 'email', created_at: server.runtime.clock.now() }).execute();
    const walletless = (await server.runtime.services.keys.create({ tier: 'read-only', scopes: ['portfolio:read'], agentId })).key;
    const res = await withKey(walletless);
    expect([res.status, res.body.code]).toEqual([409, 'WALLET_NOT_BOUND']);
    const operator = await withKey(await server.key('read-only', ['portfolio:read']));
    expect([operator.status, operator.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('is the MCP tool svc_get_portfolio_positions, answering for the key\'s wallet', async () => {
    const base = await server.runtime.listen();
    const client = new Client({ name: 'positions-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${buyer.key}` } } }));
    try {
      const result = (await client.callTool({ name: 'svc_get_portfolio_positions', arguments: {} })) as { isError?: boolean; structuredContent?: { wallet: string; positions: unknown[] } };
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toMatchObject({ wallet: buyer.account.address });
      expect(result.structuredContent!.positions).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});

/** The 1e18-scaled price of an exact decimal price string (the inverse of wadToDecimal). */
function priceWad(price: string): bigint {
  const [whole, frac = ''] = price.split('.');
  const wad = BigInt(whole!) * 10n ** 18n + BigInt(frac.padEnd(18, '0'));
  expect(wadToDecimal(wad)).toBe(price);
  return wad;
}
