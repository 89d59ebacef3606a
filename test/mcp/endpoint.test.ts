// The MCP endpoint end to end, through the official SDK Client and StreamableHTTPClientTransport over a
// real socket: keyless discovery, a wallet-registered key, read, mutating (idempotencyKey replay and
// reuse) and elevated (real wallet proof) tools, and the HTTP-level refusals (401 with RFC 9728
// metadata, 403 insufficient_scope, bad Origin, unknown session).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CATALOG } from '../../src/api/catalog/index.ts';
import { walletProofMessage } from '../../src/core/wallet-proof.ts';
import { registerWallet, idemKey } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { terms } from '../support/markets.ts';

let server: TestServer;
let base: string;
let mcpUrl: string;

beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
  base = await server.runtime.listen();
  mcpUrl = `${base}/mcp`;
});
afterAll(async () => server?.close());

async function connect(key?: string): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
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
  it('lists exactly the catalog minus the REST-only capabilities, with 2020-12 schemas and derived annotations', async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe('svc');
    const { tools } = await client.listTools();
    const expected = CATALOG.filter((c) => c.surface === 'agent' && c.mcp && 'tool' in c.mcp).map((c) => (c.mcp as { tool: string }).tool);
    expect(tools.map((t) => t.name).sort()).toEqual(expected.sort());
    const restOnly = CATALOG.filter((c) => c.surface === 'agent' && c.mcp && 'restOnly' in c.mcp);
    expect(restOnly.length).toBeGreaterThan(0);
    for (const t of tools) {
      expect(t.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      const cap = CATALOG.find((c) => c.mcp && 'tool' in c.mcp && c.mcp.tool === t.name)!;
      expect(t.annotations).toMatchObject({ readOnlyHint: cap.method === 'GET', idempotentHint: cap.idempotent });
      if (cap.requiresIdempotencyKey) expect((t.inputSchema as { required?: string[] }).required ?? JSON.stringify(t.inputSchema)).toContain('idempotencyKey');
    }
    await client.close();
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
    expect(me.structuredContent).toMatchObject({ id: agent.agentId, walletAddress: agent.account.address.toLowerCase() });

    const key = idemKey('mcp');
    const proposal = terms();
    const first = await call(client, 'svc_negotiate_propose', { ...proposal, idempotencyKey: key });
    expect(first.isError).toBeFalsy();
    const id = (first.structuredContent as { negotiation: { id: string } }).negotiation.id;
    const again = await call(client, 'svc_negotiate_propose', { ...proposal, idempotencyKey: key });
    expect((again.structuredContent as { negotiation: { id: string } }).negotiation.id).toBe(id);
    expect(again._meta?.['svc/idempotentReplayed']).toBe(true);
    const reused = await call(client, 'svc_negotiate_propose', { ...proposal, creatorFeeBps: 50, idempotencyKey: key });
    expect(reused.isError).toBe(true);
    expect(problemOf(reused).code).toBe('IDEMPOTENCY_KEY_REUSED');

    const read = await call(client, 'svc_get_negotiate_by_id', { id });
    expect((read.structuredContent as { negotiation: { id: string } }).negotiation.id).toBe(id);

    const missingKey = await call(client, 'svc_negotiate_propose', terms());
    expect(problemOf(missingKey).code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    const invalid = await call(client, 'svc_negotiate_propose', { ...terms({ question: 'short' }), idempotencyKey: idemKey() });
    expect(invalid.isError).toBe(true);
    expect(problemOf(invalid).code).toBe('INVALID_PAYLOAD');
    const unknownArg = await call(client, 'svc_get_me', { colour: 'blue' });
    expect(problemOf(unknownArg).code).toBe('INVALID_QUERY');
    await expect(client.callTool({ name: 'svc_no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });
});

export { walletProofMessage };
