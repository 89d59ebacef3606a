// What an agent learns from the service's own documents leads somewhere real: every URL and path that skill.md,
// mcp-discovery, auth-discovery and the agent card mention is a route of this server (a GET answers anything but
// "no route": a POST-only path says 405 with Allow, a path with an id says which id is unknown), and every MCP tool
// name they mention is a tool the MCP endpoint lists. Also the wording a newcomer trips on (issue 19, point 10).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALLET_SESSION_COOKIE } from '../../src/core/wallet-session.ts';
import { SSE_PATH, WS_PATH } from '../../src/api/events/transports.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { seedMarket } from '../support/market-rows.ts';

let server: TestServer;
let key: string;
let market: string;
beforeAll(async () => {
  server = await startTestServer();
  key = await server.key('execute');
  market = (await seedMarket(server)).address;
});
afterAll(async () => server?.close());

const DOCUMENTS = ['/api/agent/v1/skill.md', '/api/agent/v1/mcp-discovery', '/api/agent/v1/auth-discovery', '/.well-known/agent-card.json'];

/** Every path of ours a text mentions: absolute URLs on this server and root-relative /api/… and /.well-known/… paths. */
function pathsIn(text: string): string[] {
  const found = new Set<string>();
  // A path starts a word (or follows the base URL); ~/.cursor/mcp.json and the like are files, not ours.
  for (const m of text.matchAll(/(?:https?:\/\/svc\.test|(?<![\w.~/-]))(\/(?:api|\.well-known|mcp)[A-Za-z0-9_./{}:<>…-]*)/g)) {
    let path = m[1]!.replace(/[.…]+$/, '');
    // "GET /mcp-discovery" in prose is relative to the agent prefix, as every capability name is.
    if (path.startsWith('/mcp-')) path = `/api/agent/v1${path}`;
    if (!['/api/agent/v1', '/api/v1'].includes(path)) found.add(path);
  }
  return [...found];
}

/** A path template made concrete: ids become a seeded market, a sample account, or a placeholder the route rejects as unknown. */
function concrete(path: string): string {
  return path
    .replace(/(:address|\{address\}|<address>|0x…)/g, market)
    .replace(/(:account|\{account\})/g, `0x${'11'.repeat(20)}`)
    .replace(/(:hash|\{hash\})/g, `0x${'ab'.repeat(32)}`)
    .replace(/:[A-Za-z_]+|\{[A-Za-z_]+\}|<[A-Za-z_]+>/g, '00000000-0000-4000-8000-000000000000');
}

describe('the documents an agent reads', () => {
  it('mention only paths this server routes', async () => {
    const unrouted: string[] = [];
    let checked = 0;
    for (const doc of DOCUMENTS) {
      const res = await server.call('GET', doc);
      expect(res.status, doc).toBe(200);
      for (const path of pathsIn(res.text)) {
        const url = concrete(path);
        // The streams (SSE, WebSocket, MCP) are served outside the catalog's routes and would never end a GET.
        if ([SSE_PATH, WS_PATH, new URL(server.config.mcpUrl).pathname].includes(url)) continue;
        const got = await server.call('GET', url, { key, unchecked: true });
        checked++;
        if (got.status === 404 && typeof got.body === 'object' && String(got.body.detail).startsWith('no route')) unrouted.push(`${doc}: ${path}`);
      }
    }
    expect(unrouted).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it('name only MCP tools the endpoint lists', async () => {
    const tools = new Set(server.runtime.documents.catalogDocument().capabilities.flatMap((c) => (c.mcp.tool ? [c.mcp.tool] : [])));
    expect(tools.size).toBeGreaterThan(50);
    const unknown: string[] = [];
    for (const doc of DOCUMENTS) {
      const text = (await server.call('GET', doc)).text;
      for (const [name] of text.matchAll(/\bsvc_[a-z0-9_]+/g)) if (!tools.has(name) && name !== WALLET_SESSION_COOKIE) unknown.push(`${doc}: ${name}`);
    }
    expect([...new Set(unknown)]).toEqual([]);
  });

  it('say where things are: the error table is named, not "below" a guarantee it precedes, and trades are sized in shares', async () => {
    const skill = (await server.call('GET', '/api/agent/v1/skill.md')).text;
    expect(skill).not.toMatch(/listed below|table below/);
    const card = (await server.call('GET', '/.well-known/agent-card.json')).text;
    expect(card).not.toMatch(/Buy \d+ USDC of/);
    expect(card).toMatch(/Buy 10 YES shares/);
  });

  it('the creator-funds read describes chainId null as every active chain, as the spec has it', async () => {
    const desc = server.runtime.documents.agentCapabilities().find((c) => c.name === 'GET /trade/creator-funds')!.description;
    expect(desc).toMatch(/every active trading chain/);
    expect(desc).not.toMatch(/defaults to the served chain/);
  });
});

