// The MCP endpoint end to end, through the official SDK Client and StreamableHTTPClientTransport over a
// real socket: keyless discovery (exactly the documented keyless tools), a wallet-registered key, read,
// mutating (idempotencyKey replay and reuse, shared with REST) and elevated (real wallet proof) tools,
// annotations from each capability's declared effect, and the HTTP-level refusals (401 with RFC 9728
// metadata, 403 insufficient_scope, bad Origin, unknown session).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CATALOG } from '../../src/api/catalog/index.ts';
import { walletProofMessage } from '../../src/core/wallet-proof.ts';
import { registerWallet, idemKey, keyless, newClient } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas, terms } from '../support/markets.ts';

let server: TestServer;
let base: string;
let mcpUrl: string;

beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
  base = await server.runtime.listen();
  mcpUrl = `${base}/mcp`;
});
afterAll(async () => server?.close());

async function connect(key?: string, extraHeaders: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const headers: Record<string, string> = { ...extraHeaders, ...(key ? { authorization: `Bearer ${key}` } : {}) };
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } }));
  return client;
}

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text: string }[]; _meta?: Record<string, unknown> };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> =>
  (await client.callTool({ name, arguments: args })) as ToolResult;
const problemOf = (r: ToolResult) => JSON.parse(r.content[0]!.text) as { code: string; status: number; detail: string; reason?: string };

/** Raw JSON-RPC over HTTP, for what the SDK client hides (status codes, headers). */
async function rpc(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('MCP endpoint', () => {
  it('lists exactly the catalog minus the REST-only capabilities, with 2020-12 schemas', async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe('svc');
    const { tools } = await client.listTools();
    const expected = CATALOG.filter((c) => c.surface === 'agent' && c.mcp && 'tool' in c.mcp).map((c) => (c.mcp as { tool: string }).tool);
    expect(tools.map((t) => t.name).sort()).toEqual(expected.sort());
    expect(tools.find((t) => t.name === 'svc_keys_rotate')?.annotations?.destructiveHint).toBe(true);
    const restOnly = CATALOG.filter((c) => c.surface === 'agent' && c.mcp && 'restOnly' in c.mcp);
    expect(restOnly.length).toBeGreaterThan(0);
    for (const t of tools) {
      expect(t.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
    }
    await client.close();
  });

  it('derives every annotation from the capability\'s declared effect, not its HTTP method', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    for (const t of tools) {
      const cap = CATALOG.find((c) => c.mcp && 'tool' in c.mcp && c.mcp.tool === t.name)!;
      const readOnly = cap.effect === 'read';
      expect(t.annotations, t.name).toEqual({
        title: cap.summary,
        readOnlyHint: readOnly,
        idempotentHint: cap.idempotent,
        destructiveHint: !readOnly && cap.destructive === true,
        openWorldHint: false,
      });
      // A read takes no Idempotency-Key anywhere; a write is charged as a write.
      if (readOnly) expect(cap.requiresIdempotencyKey, t.name).toBe(false);
      if (readOnly && cap.rateClass !== 'uncharged') expect(cap.rateClass, t.name).toBe('read');
      if (!readOnly) expect(cap.rateClass, t.name).not.toBe('read');
    }
    // POSTs that change nothing say so.
    for (const name of ['svc_trade_quote', 'svc_negotiate_preflight', 'svc_confirm_order_cancel', 'svc_list_order_events', 'svc_claims_simulate', 'svc_trade_prepare']) {
      const t = tools.find((x) => x.name === name)!;
      expect(t.description, name).toContain('REST twin: POST ');
      expect(t.annotations, name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    expect(tools.find((t) => t.name === 'svc_keys_rotate')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools.find((t) => t.name === 'svc_orderbook_place_order')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    await client.close();
  });

  it('gives idempotencyKey to every tool whose REST twin takes the header: required exactly where REST requires it', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    for (const t of tools) {
      const cap = CATALOG.find((c) => c.mcp && 'tool' in c.mcp && c.mcp.tool === t.name)!;
      const branches = ((t.inputSchema as { oneOf?: unknown[] }).oneOf ?? [t.inputSchema]) as { properties?: Record<string, { pattern?: string; maxLength?: number }>; required?: string[] }[];
      for (const b of branches) {
        const arg = b.properties?.idempotencyKey;
        // A GET takes none (svc_get_transactions_status has a query field of that name: a correlation label it echoes).
        if (cap.method === 'GET') expect(arg === undefined || Object.hasOwn((cap.input?.query as { shape?: object } | undefined)?.shape ?? {}, 'idempotencyKey'), t.name).toBe(true);
        else expect(arg, t.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 256, pattern: '^[\\x21-\\x7e]{1,256}$' });
        expect((b.required ?? []).includes('idempotencyKey'), t.name).toBe(cap.requiresIdempotencyKey);
      }
    }
    await client.close();
  });

  it('lets a keyless session call exactly the tools the documents list as keyless', async () => {
    const documented = (await server.call('GET', '/api/agent/v1/mcp-discovery')).body.authentication.keylessTools as string[];
    const skill = (await server.call('GET', '/api/agent/v1/skill.json')).body as { auth: { publicTools: string[] } };
    expect(skill.auth.publicTools).toEqual(documented);
    // docs/mcp.md names them too, between its two markers.
    const page = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
    const listed = /<!-- keyless-tools -->([\s\S]*?)<!-- \/keyless-tools -->/.exec(page)?.[1] ?? '';
    expect([...listed.matchAll(/`(svc_\w+)`/g)].map((m) => m[1]).sort()).toEqual([...documented].sort());

    // What a session without a key can really call: each tool once, with no arguments (a fresh client address, so the
    // keyless budgets of other tests do not interfere). A tool that needs a key is refused over HTTP (the SDK throws).
    const client = await connect(undefined, newClient());
    const { tools } = await client.listTools();
    const callable: string[] = [];
    for (const t of tools) {
      try {
        const r = await call(client, t.name, {});
        if (r.isError) expect(problemOf(r).code, t.name).not.toMatch(/^(API_KEY_REQUIRED|INSUFFICIENT_TIER|INSUFFICIENT_SCOPE)$/);
        callable.push(t.name);
      } catch (err) {
        expect(String(err), t.name).toMatch(/401|Unauthorized|API_KEY_REQUIRED/i);
      }
    }
    await client.close();
    expect(callable.sort()).toEqual([...documented].sort());
    // The discovery reads that are not keyless need a key with markets:read (docs/http.md), as their REST twins do.
    expect(documented).toContain('svc_discover_capabilities');
    expect(documented).not.toContain('svc_discover_markets');
  });

  it('answers keyless public tools with structuredContent and the same JSON as text', async () => {
    const client = await connect();
    const r = await call(client, 'svc_get_time');
    expect(r.isError).toBeFalsy();
    expect(typeof r.structuredContent?.serverTime).toBe('number');
    expect(JSON.parse(r.content[0]!.text)).toEqual(r.structuredContent);
    await client.ping();
    await client.close();
  });

  it('refuses a keyless call of a keyed tool with 401 and resource_metadata; serves RFC 9728 metadata at both locations', async () => {
    const init = await rpc(INIT);
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    const res = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_get_me', arguments: {} } }, { 'mcp-session-id': session });
    expect(res.status).toBe(401);
    const metadataUrl = `${server.config.mcpUrl}/.well-known/oauth-protected-resource`;
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    expect(JSON.parse(res.text).code).toBe('API_KEY_REQUIRED');

    const bad = await rpc(INIT, { authorization: 'Bearer svc_test_not_a_key' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');

    for (const path of ['/mcp/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const meta = await fetch(`${base}${path}`);
      expect(meta.status).toBe(200);
      expect(await meta.json()).toMatchObject({ resource: server.config.mcpUrl, bearer_methods_supported: ['header'] });
    }
  });

  it('answers 403 insufficient_scope for a key below the tool tier', async () => {
    const readOnly = await server.key('read-only');
    const init = await rpc(INIT, { authorization: `Bearer ${readOnly}` });
    const session = init.headers.get('mcp-session-id')!;
    const res = await rpc(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_negotiate_propose', arguments: { ...terms(), idempotencyKey: 'x' } } },
      { 'mcp-session-id': session, authorization: `Bearer ${readOnly}` },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope".*resource_metadata="/);
    expect(JSON.parse(res.text).code).toBe('INSUFFICIENT_TIER');
    // A session is bound to the credential that opened it.
    const other = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': session });
    expect(other.status).toBe(403);
  });

  it('refuses a foreign Origin with 403, an unknown session with 404, and ends a session on DELETE', async () => {
    const evil = await rpc(INIT, { origin: 'http://evil.example.com' });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.text).code).toBe('ORIGIN_NOT_ALLOWED');
    const ok = await rpc(INIT, { origin: new URL(server.config.publicBaseUrl).origin });
    expect(ok.status).toBe(200);
    const session = ok.headers.get('mcp-session-id')!;
    const del = await fetch(mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
    expect(del.status).toBe(200);
    const gone = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': session });
    expect(gone.status).toBe(404);
    const none = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(none.status).toBe(400);
  });

  it('runs read and mutating tools with a wallet-registered key: idempotencyKey replays, reuse is refused', async () => {
    const agent = await registerWallet(server);
    const client = await connect(agent.key);
    const me = await call(client, 'svc_get_me');
    expect(me.structuredContent).toMatchObject({ id: agent.agentId, apiKeyId: agent.keyId, walletAddress: agent.account.address.toLowerCase() });

    const key = idemKey('mcp');
    const proposal = terms();
    const negotiations = async () =>
      Number((await server.runtime.database.db.selectFrom('negotiations').select((eb) => eb.fn.countAll().as('n')).where('agent_id', '=', agent.agentId).executeTakeFirstOrThrow()).n);
    const first = await call(client, 'svc_negotiate_propose', { ...proposal, idempotencyKey: key });
    expect(first.isError).toBeFalsy();
    const id = (first.structuredContent as { negotiation: { id: string } }).negotiation.id;
    const again = await call(client, 'svc_negotiate_propose', { ...proposal, idempotencyKey: key });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(again._meta?.['svc/idempotentReplayed']).toBe(true);
    expect(await negotiations()).toBe(1); // the retry made no second negotiation
    const reused = await call(client, 'svc_negotiate_propose', { ...proposal, creatorFeeBps: 50, idempotencyKey: key });
    expect(reused.isError).toBe(true);
    expect(problemOf(reused)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422 });
    expect(await negotiations()).toBe(1);

    // One store for both transports: a REST write retried over MCP with the same key replays, and vice versa.
    const restKey = idemKey('rest-then-mcp');
    const restProposal = terms({ question: 'Will the REST-then-MCP market resolve to Yes this year?' });
    const rest = await server.call('POST', '/api/agent/v1/negotiate/propose', { key: agent.key, body: restProposal, idempotencyKey: restKey });
    expect(rest.status, rest.text).toBe(201);
    const overMcp = await call(client, 'svc_negotiate_propose', { ...restProposal, idempotencyKey: restKey });
    expect(overMcp._meta?.['svc/idempotentReplayed']).toBe(true);
    expect(overMcp.structuredContent).toEqual(rest.body);
    const restReuse = await server.call('POST', '/api/agent/v1/negotiate/propose', { key: agent.key, body: terms(), idempotencyKey: key });
    expect(restReuse.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await negotiations()).toBe(2);

    // Where REST exempts the call (or it changes nothing) the argument is accepted and unused, as the header is.
    const nonceA = await call(client, 'svc_auth_nonce', { idempotencyKey: 'same-key' });
    const nonceB = await call(client, 'svc_auth_nonce', { idempotencyKey: 'same-key' });
    expect(nonceA.isError).toBeFalsy();
    expect(nonceB.structuredContent?.nonce).not.toBe(nonceA.structuredContent?.nonce);
    const preflight = await call(client, 'svc_negotiate_preflight', { ...terms(), idempotencyKey: idemKey('preflight') });
    expect(preflight.isError, preflight.content[0]?.text).toBeFalsy();
    expect(problemOf(await call(client, 'svc_auth_nonce', { idempotencyKey: 'has space' })).code).toBe('INVALID_IDEMPOTENCY_KEY');

    const read = await call(client, 'svc_get_negotiate_by_id', { id });
    expect((read.structuredContent as { negotiation: { id: string } }).negotiation.id).toBe(id);

    const missingKey = await call(client, 'svc_negotiate_propose', terms());
    expect(problemOf(missingKey)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REQUIRED', status: 400, detail: expect.stringContaining('idempotencyKey argument') });
    const invalid = await call(client, 'svc_negotiate_propose', { ...terms({ question: 'short' }), idempotencyKey: idemKey() });
    expect(invalid.isError).toBe(true);
    expect(problemOf(invalid).code).toBe('INVALID_PAYLOAD');
    const unknownArg = await call(client, 'svc_get_me', { colour: 'blue' });
    expect(problemOf(unknownArg).code).toBe('INVALID_QUERY');
    await expect(client.callTool({ name: 'svc_no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });
});

/** Reads an SSE body until `count` events arrived (or it ends); returns them parsed. */
async function readEvents(res: Response, count: number): Promise<{ id?: string; retry?: string; data: string }[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const events: { id?: string; retry?: string; data: string }[] = [];
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const field = (name: string) => block.split('\n').find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim();
      if (block.startsWith(':')) continue; // keep-alive comment
      events.push({ id: field('id'), retry: field('retry'), data: field('data') ?? '' });
    }
  }
  await reader.cancel();
  return events;
}

describe('MCP SSE streams', () => {
  it('primes every stream with an event id and a retry hint, and replays what a client missed after Last-Event-ID', async () => {
    const init = await rpc(INIT);
    const session = init.headers.get('mcp-session-id')!;
    const h = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    expect((await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, h)).status).toBe(202);

    const standalone = await fetch(mcpUrl, { headers: { ...h, accept: 'text/event-stream' } });
    expect(standalone.status).toBe(200);
    expect(standalone.headers.get('content-type')).toContain('text/event-stream');
    const [priming] = await readEvents(standalone, 1);
    expect(priming).toMatchObject({ data: '', retry: '1000' });
    expect(priming!.id).toBeTruthy();

    // A tool call answered on its own POST stream: priming event first, then the result.
    const post = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...h, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'svc_get_time', arguments: {} } }),
    });
    const [postPriming, result] = await readEvents(post, 2);
    expect(postPriming!.data).toBe('');
    expect(JSON.parse(result!.data)).toMatchObject({ id: 7, result: { structuredContent: { serverTime: expect.any(Number) } } });

    // A client that lost that stream right after the priming event resumes it and gets the result.
    const resumed = await fetch(mcpUrl, { headers: { ...h, accept: 'text/event-stream', 'last-event-id': postPriming!.id! } });
    expect(resumed.status).toBe(200);
    const [replayed] = await readEvents(resumed, 1);
    expect(replayed!.id).toBe(result!.id);
    expect(JSON.parse(replayed!.data)).toMatchObject({ id: 7, result: { structuredContent: { serverTime: expect.any(Number) } } });
  });
});

describe('MCP wallet-proof elevation (svc_get_trade_creator_funds)', () => {
  it('answers with a real EIP-191 proof (bound wallet, walletAddress omitted) and refuses replays, foreign payloads and missing proofs', async () => {
    const agent = await registerWallet(server);
    await gas(server, agent.account.address);
    await fund(server, agent.account.address);
    const { market } = await createMarket(server, agent.key, agent.account);
    // The indexer confirms the creation (bond status syncing → pending); settle it so both reads below agree.
    await server.runtime.services.indexer.syncNow();
    const client = await connect(agent.key);
    const tool = 'svc_get_trade_creator_funds';
    const chainId = server.config.chain.id;
    // Every field of the message from where the documents say it comes from: agentId and apiKeyId from GET /me.
    const me = (await call(client, 'svc_get_me')).structuredContent as { id: string; apiKeyId: string };
    expect(me).toMatchObject({ id: agent.agentId, apiKeyId: agent.keyId });

    const proofFor = async (payload: Record<string, unknown>, over: { tool?: string; scope?: string } = {}) => {
      const { nonce } = (await keyless(server, '/api/auth/nonce')).body as { nonce: string };
      const timestamp = Math.floor(Date.now() / 1000);
      const message = walletProofMessage({
        agentId: me.id,
        apiKeyId: me.apiKeyId,
        tool: over.tool ?? tool,
        scope: over.scope ?? 'portfolio:read',
        chainId,
        walletAddress: agent.account.address,
        resourceId: null,
        payload,
        nonce,
        timestamp,
      });
      return { walletSignature: await agent.account.signMessage({ message }), signatureTimestamp: timestamp, proofNonce: nonce };
    };

    const proof = await proofFor({ chainId });
    const ok = await call(client, tool, { chainId, ...proof });
    expect(ok.isError).toBeFalsy();
    const funds = ok.structuredContent as { walletAddress: string; chainId: number; creatorFunds: { markets: { marketAddress: string; marketBalance: { status: string } }[] } };
    expect(funds.walletAddress).toBe(agent.account.address.toLowerCase());
    expect(funds.chainId).toBe(chainId);
    expect(funds.creatorFunds.markets.map((m) => m.marketAddress)).toEqual([market.address.toLowerCase()]);
    expect(funds.creatorFunds.markets[0]!.marketBalance.status).toBe('zero');

    // REST answers the same for the key's bound wallet.
    const rest = await server.call('GET', `/api/agent/v1/trade/creator-funds?chainId=${chainId}`, { key: agent.key });
    expect(rest.status).toBe(200);
    expect(rest.body.creatorFunds).toEqual(funds.creatorFunds);

    const replay = await call(client, tool, { chainId, ...proof });
    expect(problemOf(replay)).toMatchObject({ code: 'WALLET_PROOF_INVALID', reason: 'NONCE_USED' });
    const otherPayload = await call(client, tool, { ...(await proofFor({})), chainId });
    expect(problemOf(otherPayload)).toMatchObject({ code: 'WALLET_PROOF_INVALID', reason: 'SIGNATURE_MISMATCH' });
    const otherTool = await call(client, tool, { ...(await proofFor({ chainId }, { tool: 'svc_get_me' })), chainId });
    expect(problemOf(otherTool).reason).toBe('SIGNATURE_MISMATCH');
    const stranger = await call(client, tool, { ...(await proofFor({ chainId })), chainId, walletAddress: '0x000000000000000000000000000000000000dEaD' });
    expect(problemOf(stranger).reason).toBe('SIGNATURE_MISMATCH');
    const noProof = await call(client, tool, { chainId });
    expect(noProof.isError).toBe(true);
    expect(problemOf(noProof)).toMatchObject({ code: 'WALLET_AUTH_REQUIRED', status: 401, reason: 'PROOF_MISSING' });
    const partial = await call(client, tool, { chainId, walletSignature: '0x00' });
    expect(problemOf(partial).code).toBe('INVALID_QUERY');
    await client.close();
  });

  it('publishes where every field of the signed message comes from', async () => {
    const doc = (await server.call('GET', '/api/agent/v1/mcp-discovery')).body.toolElevation.walletProof;
    expect(doc.placeholders.map((p: { placeholder: string }) => `{${p.placeholder}}`).join(':')).toBe(doc.template.split(':').slice(1).join(':'));
    const source = (name: string) => doc.placeholders.find((p: { placeholder: string }) => p.placeholder === name).source as string;
    expect(source('apiKeyId')).toContain('GET /me');
    expect(source('agentId')).toContain('GET /me');
    expect(source('nonce')).toContain('POST /api/auth/nonce');
    expect(source('timestamp')).toContain('Unix seconds');
    expect(doc.elevatedTools).toContainEqual({ tool: 'svc_get_trade_creator_funds', scope: 'portfolio:read', resourceId: '-', walletRequired: false });
    expect(doc.elevatedTools).toContainEqual(expect.objectContaining({ tool: 'svc_resolution_votes_ballots', walletRequired: true }));
  });
});

describe('MCP svc_discover_market_states', () => {
  it("takes the spec's marketAddress and chainId and marks the market's state in the graph, as REST does", async () => {
    const creator = await registerWallet(server);
    await gas(server, creator.account.address);
    await fund(server, creator.account.address);
    const { market } = await createMarket(server, creator.key, creator.account);
    const client = await connect(creator.key);
    const chainId = server.config.chain.id;
    const r = await call(client, 'svc_discover_market_states', { marketAddress: market.address, chainId });
    expect(r.isError, r.content[0]?.text).toBeFalsy();
    const graph = r.structuredContent as { market: { address: string; chainId: number; state: string }; states: { state: string; current: boolean }[] };
    expect(graph.market).toMatchObject({ address: market.address.toLowerCase(), chainId, state: 'open' });
    expect(graph.states.filter((s) => s.current).map((s) => s.state)).toEqual(['open']);
    const rest = await server.call('GET', `/api/agent/v1/discover/market-states?marketAddress=${market.address}&chainId=${chainId}`, { key: creator.key });
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual(r.structuredContent);
    expect(problemOf(await call(client, 'svc_discover_market_states', { chainId })).code).toBe('INVALID_QUERY'); // marketAddress is required
    expect(problemOf(await call(client, 'svc_discover_market_states', { marketAddress: market.address, chainId: 1 })).code).toBe('UNSUPPORTED_CHAIN');
    await client.close();
  });
});
