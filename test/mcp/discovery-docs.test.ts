// Every public discovery document for agents: served keyless, shaped as the spec says, generated
// from the catalog (so the documents agree with each other and with tools/list), and linked to
// each other with links that resolve.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG, restOnlyCapabilities } from '../../src/api/catalog/index.ts';
import { EVENT_TRANSPORTS } from '../../src/api/events/transports.ts';
import { landingPage } from '../../src/api/docs/landing-page.ts';
import { buildSkill } from '../../src/api/docs/skill.ts';
import { CURRENT_VERSION } from '../../src/api/http/versions.ts';
import { buildTools } from '../../src/api/mcp/tools.ts';
import { ERROR_CODES } from '../../src/core/error-codes.ts';
import { RATE_LIMITS } from '../../src/services/rate-limit/limits.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';

const V1 = '/api/agent/v1';
const BASE = 'http://svc.test';
const MCP_URL = `${BASE}/mcp`;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet' } });
});
afterAll(async () => server?.close());

const agentCaps = CATALOG.filter((c) => c.surface === 'agent');
const toolNames = new Set(buildTools(CATALOG).map((t) => t.definition.name));
const capByName = new Map(agentCaps.map((c) => [c.name, c]));

/** A same-host URL (absolute or a path) as the path to inject; fails for another host. */
function pathOf(url: string): string {
  if (url.startsWith('/')) return url.split('#')[0]!;
  const parsed = new URL(url);
  expect(parsed.origin, `${url} is on this service's host`).toBe(BASE);
  return `${parsed.pathname}${parsed.search}`;
}

async function expectResolves(urls: Iterable<string>): Promise<void> {
  for (const url of new Set(urls)) {
    const res = await server.call('GET', pathOf(url), { unchecked: true });
    expect(res.status, `GET ${url}`).toBe(200);
  }
}

describe('GET /mcp-discovery', () => {
  it('has every field of the spec shape, with the live endpoint', async () => {
    const res = await server.call('GET', `${V1}/mcp-discovery`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const doc = res.body;
    expect(doc.spec).toEqual({ name: 'model-context-protocol', version: '2025-11-25', specUrl: expect.stringMatching(/^https:\/\//) });
    expect(doc.endpoints.remote).toEqual({
      url: MCP_URL,
      transport: 'streamable-http',
      auth: 'api-key-bearer',
      protectedResourceMetadata: `${MCP_URL}/.well-known/oauth-protected-resource`,
      status: 'live',
    });
    expect(doc.authentication).toMatchObject({ scheme: 'bearer', header: 'Authorization: Bearer <API_KEY>', alias: 'X-API-Key: <API_KEY>' });
    expect(doc.toolElevation.walletProof).toMatchObject({ windowSeconds: 300, nonceEndpoint: '/api/auth/nonce' });
    expect(doc.toolElevation.walletProof.template.startsWith('svc-mcp-auth:{agentId}:{apiKeyId}:{tool}:')).toBe(true);
    expect(doc.installSnippets.map((s: { client: string }) => s.client)).toEqual(['claude-desktop', 'claude-code', 'cursor', 'codex']);
    for (const s of doc.installSnippets) expect(s.description.length).toBeGreaterThan(0);
    expect(doc.workflows.map((w: { name: string }) => w.name)).toEqual(expect.arrayContaining(['discover', 'create', 'trade', 'listen']));
    expect(doc.registration.registerUrl).toBe(`${V1}/register`);
    for (const p of doc.registration.paths) {
      expect(['email', 'wallet', 'anonymous']).toContain(p.kind);
      expect(Object.keys(p)).toEqual(expect.arrayContaining(['kind', 'description', 'requires', 'grantsScopes', 'ttlHours']));
      for (const r of p.requires) expect(['email', 'walletProof', 'humanCheckToken']).toContain(r);
      expect(p.ttlHours === null || Number.isInteger(p.ttlHours)).toBe(true);
    }
    expect(doc.registration.paths.find((p: { kind: string }) => p.kind === 'wallet').status).toBe('open');
    expect(doc.registration).toHaveProperty('turnstileSiteKey');
    expect(Object.keys(doc.registration.upgradeUrls).sort()).toEqual(['bindEmail', 'bindWallet', 'recoverKey']);
    expect(doc.surfacePolicy.intentionalRestOnly).toEqual([...restOnlyCapabilities(CATALOG), ...EVENT_TRANSPORTS]);
    expect(typeof doc.surfacePolicy.doctrineUrl).toBe('string');
    expect(typeof doc.surfacePolicy.note).toBe('string');
    expect(typeof doc.referenceUrl).toBe('string');
  });

  it('gives install snippets that parse and point at the MCP URL', async () => {
    const snippets = (await server.call('GET', `${V1}/mcp-discovery`)).body.installSnippets as { client: string; format: string; snippet: string }[];
    const by = Object.fromEntries(snippets.map((s) => [s.client, s]));

    const desktop = JSON.parse(by['claude-desktop']!.snippet).mcpServers.svc;
    expect(desktop.command).toBe('npx');
    expect(desktop.args.slice(0, 3)).toEqual(['-y', 'mcp-remote', MCP_URL]);
    expect(desktop.args.slice(3, 5)).toEqual(['--header', 'Authorization: Bearer ${SVC_API_KEY}']);
    // svc.test is plain http and not loopback: mcp-remote needs to be told.
    expect(desktop.args).toContain('--allow-http');
    expect(Object.keys(desktop.env)).toEqual(['SVC_API_KEY']);

    const cursor = JSON.parse(by.cursor!.snippet).mcpServers.svc;
    expect(cursor.url).toBe(MCP_URL);
    expect(cursor.headers.Authorization).toMatch(/^Bearer \S/);

    const code = by['claude-code']!.snippet;
    expect(by['claude-code']!.format).toBe('shell');
    expect(code.startsWith('claude mcp add')).toBe(true);
    expect(code).toContain('--transport http');
    expect(code).toContain(` ${MCP_URL} `);
    expect(code).toContain('--header "Authorization: Bearer ');

    // A tiny TOML reader for the codex snippet: one table, then key = "string" lines.
    const lines = by.codex!.snippet.split('\n').filter((l) => l.trim() !== '');
    expect(lines[0]).toBe('[mcp_servers.svc]');
    const entries = lines.slice(1).map((l) => {
      const m = /^([A-Za-z0-9_]+) = "((?:[^"\\]|\\.)*)"$/.exec(l);
      expect(m, `TOML line ${l}`).not.toBeNull();
      return [m![1]!, JSON.parse(`"${m![2]}"`) as string] as const;
    });
    expect(Object.fromEntries(entries)).toEqual({ url: MCP_URL, bearer_token_env_var: 'SVC_API_KEY' });
  });

  it('gives the canonical loops as tool sequences whose tools exist and match the catalog', async () => {
    const workflows = (await server.call('GET', `${V1}/mcp-discovery`)).body.workflows as {
      name: string;
      status: string;
      steps: { tool: string | null; rest: string; note: string }[];
    }[];
    const byName = Object.fromEntries(workflows.map((w) => [w.name, w]));
    const rest = (w: string) => byName[w]!.steps.map((s) => s.rest);
    expect(rest('discover')).toEqual([`GET ${V1}/discover/markets`]);
    expect(rest('create')).toEqual([
      `POST ${V1}/negotiate/preflight`,
      `POST ${V1}/negotiate/propose`,
      `POST ${V1}/negotiate/:id/accept`,
      `POST ${V1}/negotiate/:id/prepare-deploy`,
      `POST ${V1}/negotiate/:id/commit-deploy`,
    ]);
    expect(rest('trade')).toEqual([`POST ${V1}/trade/quote`, `POST ${V1}/trade/prepare`]);
    // Listen is whatever of its spec steps the catalog serves: nothing invented.
    const listenServed = ['GET /events/discovery', 'GET /webhooks/discovery'].filter((n) => capByName.has(n));
    expect(byName.listen!.steps.map((s) => s.rest)).toEqual(listenServed.map((n) => `GET ${capByName.get(n)!.fullPath}`));
    if (listenServed.length === 0) expect(byName.listen!.status).toBe('not-yet-available');

    for (const w of workflows) {
      for (const step of w.steps) {
        const cap = agentCaps.find((c) => `${c.method} ${c.fullPath}` === step.rest);
        expect(cap, step.rest).toBeDefined();
        if (step.tool === null) expect(cap!.mcp && 'restOnly' in cap!.mcp, `${step.rest} has no tool only when REST-only`).toBe(true);
        else {
          expect(toolNames.has(step.tool), `${step.tool} is an MCP tool`).toBe(true);
          expect(step.tool).toBe((cap!.mcp as { tool: string }).tool);
        }
      }
    }
    expect(byName.create!.steps[2]!.tool).toBeNull();
  });

  it('links every other discovery document, and every link resolves', async () => {
    const doc = (await server.call('GET', `${V1}/mcp-discovery`)).body;
    expect(Object.keys(doc.links).sort()).toEqual(['agentCard', 'agentContract', 'authDiscovery', 'catalog', 'landing', 'openapi', 'skill', 'skillJson']);
    await expectResolves([...Object.values(doc.links as Record<string, string>), doc.endpoints.remote.protectedResourceMetadata, doc.referenceUrl, doc.surfacePolicy.doctrineUrl]);
  });
});

describe('GET /catalog.json', () => {
  it('lists exactly the agent catalog, with tiers, MCP mapping and schemas', async () => {
    const res = await server.call('GET', `${V1}/catalog.json`);
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBeUndefined();
    const doc = res.body;
    expect(doc.version).toBe(CURRENT_VERSION);
    expect(doc.generatedFrom).toBe('capability catalog');
    expect(doc.capabilities.map((c: { name: string }) => c.name)).toEqual(agentCaps.map((c) => c.name));
    for (const entry of doc.capabilities) {
      const cap = capByName.get(entry.name)!;
      expect(entry.path).toBe(cap.fullPath);
      expect(entry.method).toBe(cap.method);
      expect(entry.requiredTier).toBe(cap.tier);
      expect(entry.scopes).toEqual(cap.scopes);
      expect(entry.rateClass).toBe(cap.rateClass);
      expect(entry.requiresIdempotencyKey).toBe(cap.requiresIdempotencyKey);
      expect(entry.effect).toBe(cap.effect);
      expect(entry.errors).toEqual(expect.arrayContaining([...cap.errors]));
      for (const code of entry.errors) expect(ERROR_CODES).toHaveProperty(code);
      expect(entry.mcp.tool).toBe(cap.mcp && 'tool' in cap.mcp ? cap.mcp.tool : null);
      expect(entry.mcp.restOnly).toBe(cap.mcp && 'restOnly' in cap.mcp ? cap.mcp.restOnly : null);
      expect(entry.mcp.elevation).toEqual(cap.mcpElevation ? { scope: cap.mcpElevation.scope } : null);
      expect(entry.inputSchema.body === null).toBe(cap.input?.body === undefined);
      expect(typeof entry.outputSchema).toBe('object');
    }
    // Public capabilities are null here (GET /discover/capabilities shows them as read-only).
    expect(doc.capabilities.find((c: { name: string }) => c.name === 'GET /catalog.json')).toMatchObject({ requiredTier: null, rateClass: 'uncharged', mcp: { tool: 'svc_get_catalog' } });
    expect(doc.restOnly).toEqual(restOnlyCapabilities(CATALOG));
    expect(doc.tools).toEqual(JSON.parse(JSON.stringify(buildTools(CATALOG).map(({ definition }) => definition))));
    expect(doc.tools.length + doc.restOnly.length).toBe(doc.capabilities.length);
  });

  it('agrees with GET /discover/capabilities', async () => {
    const listed = (await server.call('GET', `${V1}/discover/capabilities`)).body.capabilities.map((c: { name: string }) => c.name);
    const catalog = (await server.call('GET', `${V1}/catalog.json`)).body.capabilities.map((c: { name: string }) => c.name);
    expect(catalog).toEqual(listed);
  });
});

describe('skill document', () => {
  it('GET /skill.json: the loops name REST paths and MCP tools that exist; limits and codes come from the constants', async () => {
    const res = await server.call('GET', `${V1}/skill.json`);
    expect(res.status).toBe(200);
    const skill = res.body;
    expect(skill.version).toBe(CURRENT_VERSION);
    expect(skill.chainId).toBe(8453);
    expect(skill.loops.map((l: { id: string }) => l.id)).toEqual(expect.arrayContaining(['discover', 'create', 'trade', 'listen']));
    for (const loop of skill.loops) {
      expect(loop.steps.length + loop.pending.length).toBeGreaterThan(0);
      for (const step of loop.steps) {
        const cap = capByName.get(step.capability);
        expect(cap, step.capability).toBeDefined();
        expect(step.rest).toBe(`${cap!.method} ${cap!.fullPath}`);
        if (step.tool !== null) expect(toolNames.has(step.tool), step.tool).toBe(true);
        else expect(step.restOnly).toEqual(expect.any(String));
      }
      for (const missing of loop.pending) expect(capByName.has(missing)).toBe(false);
      expect(loop.status).toBe(loop.pending.length === 0 ? 'available' : loop.steps.length === 0 ? 'not-yet-available' : 'partial');
    }
    const listen = skill.loops.find((l: { id: string }) => l.id === 'listen');
    if (listen.steps.length === 0) expect(listen.description).toContain('Not yet available');

    expect(skill.auth).toMatchObject({ scheme: 'bearer', header: 'Authorization: Bearer <API_KEY>', alias: 'X-API-Key: <API_KEY>' });
    expect(skill.auth.tiers.map((t: { tier: string }) => t.tier)).toEqual(['read-only', 'propose', 'execute']);
    expect(skill.auth.walletProof.windowSeconds).toBe(300);
    expect(skill.auth.walletProof.template).toContain('svc-mcp-auth:');
    expect(skill.limits.rateLimits.map((r: { read: number; write: number }) => [r.read, r.write])).toEqual(Object.values(RATE_LIMITS).map((l) => [l.read, l.write]));
    expect(skill.limits.idempotencyKey).toEqual({ minLength: 1, maxLength: 256 });
    expect(skill.limits.proofNonce).toEqual({ minLength: 1, maxLength: 256 });
    expect(skill.limits.walletProofWindowSeconds).toBe(300);
    expect(skill.limits.paging).toContainEqual({ capability: 'GET /discover/markets', parameter: 'pageSize', minimum: 1, maximum: 100, default: 20 });
    expect(skill.errors.contentType).toBe('application/problem+json');
    expect(Object.keys(skill.errors.shape)).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'code']));
    expect(skill.errors.codes).toEqual(Object.entries(ERROR_CODES).map(([code, e]) => ({ code, status: e.status, title: e.title })));
    expect(skill.mcp).toMatchObject({ url: MCP_URL, transport: 'streamable-http', toolCount: toolNames.size });
  });

  it('GET /skill.md is markdown rendered from the same object', async () => {
    const json = (await server.call('GET', `${V1}/skill.json`)).body;
    const res = await server.call('GET', `${V1}/skill.md`, { unchecked: true });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.headers['svc-version']).toBe(CURRENT_VERSION);
    const md = res.text;
    expect(md.startsWith('---\nname: svc\n')).toBe(true);
    expect(md).toContain(`# ${json.title}`);
    for (const loop of json.loops) {
      expect(md).toContain(`### ${loop.name}`);
      for (const step of loop.steps) {
        expect(md).toContain(`\`${step.rest}\``);
        if (step.tool) expect(md).toContain(`\`${step.tool}\``);
      }
    }
    for (const c of json.errors.codes) expect(md).toContain(`| ${c.status} | \`${c.code}\` |`);
    for (const r of json.limits.rateLimits) expect(md).toContain(`| ${r.caller} | ${r.read} | ${r.write} |`);
    expect(md).toContain(json.auth.walletProof.template);
    // Links to the documents it names.
    for (const url of [json.links.mcpDiscovery, json.links.openapi, json.links.catalog]) expect(md).toContain(url);
  });

  it('links resolve', async () => {
    const { links } = (await server.call('GET', `${V1}/skill.json`)).body;
    await expectResolves(Object.entries(links as Record<string, string>).filter(([k]) => k !== 'apiBase' && k !== 'mcp').map(([, v]) => v));
  });
});

describe('GET /agents (landing page)', () => {
  it('is HTML for people and agents, links every discovery document, and loads nothing from elsewhere', async () => {
    const res = await server.call('GET', '/agents', { unchecked: true });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    const page = res.text;
    expect(page).toContain(`<link rel="alternate" type="text/markdown" href="${BASE}${V1}/skill.md">`);
    expect(page).toContain(`<link rel="alternate" type="application/json" href="${BASE}${V1}/skill.json">`);
    expect(page).not.toMatch(/<script|<img|<iframe|@import/i);
    expect(page).toContain(`<code>${MCP_URL}</code>`);
    // Escaped: the placeholder in the auth header is text, not a tag.
    expect(page).toContain('Authorization: Bearer &lt;API_KEY&gt;');
    const hrefs = [...page.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
    for (const path of [
      `${V1}/mcp-discovery`,
      `${V1}/catalog.json`,
      `${V1}/openapi.json`,
      `${V1}/skill.md`,
      `${V1}/skill.json`,
      `${V1}/agent-contract`,
      '/.well-known/agent-card.json',
      '/mcp/.well-known/oauth-protected-resource',
    ]) {
      expect(hrefs).toContain(`${BASE}${path}`);
    }
    await expectResolves(hrefs);
    // Every loop and every install snippet is on the page.
    const skill = (await server.call('GET', `${V1}/skill.json`)).body;
    for (const loop of skill.loops) expect(page).toContain(`<h3>${loop.name} `);
    expect(page).toContain('[mcp_servers.svc]');
    expect(page).toContain('claude mcp add --transport http svc');
    expect(page).toContain('id="evm-chains"');
  });

  it('escapes every value it prints', () => {
    const hostile = buildSkill(CATALOG, { publicBaseUrl: BASE, mcpUrl: `${BASE}/mcp?x="><script>alert(1)</script>`, chainId: 8453, environment: 'test' });
    const page = landingPage(hostile);
    expect(page).not.toContain('<script>');
    expect(page).toContain('x=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('answers 405 to other methods and 404 below it, as problem+json', async () => {
    const post = await server.call('POST', '/agents', { body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET');
    expect(post.headers['content-type']).toContain('application/problem+json');
    const card = await server.call('DELETE', '/.well-known/agent-card.json');
    expect(card.status).toBe(405);
    const below = await server.call('GET', '/agents/nothing-here');
    expect(below.status).toBe(404);
    expect(below.body.code).toBe('NOT_FOUND');
  });
});

describe('GET /api/agent/v1/agent-contract', () => {
  it('states the guarantees, the limits and the error code table from the same skill', async () => {
    const res = await server.call('GET', `${V1}/agent-contract`, { unchecked: true });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['svc-version']).toBe(CURRENT_VERSION);
    const page = res.text;
    const skill = (await server.call('GET', `${V1}/skill.json`)).body;
    expect(skill.guarantees.map((g: { id: string }) => g.id)).toEqual(
      expect.arrayContaining(['idempotency', 'errors', 'money', 'wallet-proof', 'self-custody', 'surfaces', 'versioning']),
    );
    for (const g of skill.guarantees) expect(page).toContain(`<dt id="${g.id}"><strong>${g.title}</strong></dt>`);
    for (const [code, e] of Object.entries(ERROR_CODES)) expect(page).toContain(`<tr><td>${e.status}</td><td><code id="${code}">${code}</code></td>`);
    for (const l of Object.values(RATE_LIMITS)) expect(page).toContain(`<td>${l.read}</td><td>${l.write}</td>`);
    expect(page).toContain('Svc-Version');
    expect(page).toContain(`${toolNames.size} tools = ${agentCaps.length} agent capabilities - ${agentCaps.length - toolNames.size} REST-only`);
    const hrefs = [...page.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
    await expectResolves(hrefs);
  });
});

describe('GET /.well-known/agent-card.json', () => {
  // The A2A v0.3 AgentCard's required fields (specification/json/a2a.json, AgentCard and AgentSkill).
  const AGENT_CARD_V03 = {
    type: 'object',
    required: ['protocolVersion', 'name', 'description', 'url', 'version', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills'],
    properties: {
      protocolVersion: { type: 'string' },
      name: { type: 'string', minLength: 1 },
      description: { type: 'string', minLength: 1 },
      url: { type: 'string', format: 'uri' },
      preferredTransport: { type: 'string', enum: ['JSONRPC', 'GRPC', 'HTTP+JSON'] },
      additionalInterfaces: { type: 'array', items: { type: 'object', required: ['url', 'transport'], properties: { url: { type: 'string', format: 'uri' }, transport: { type: 'string' } } } },
      version: { type: 'string' },
      documentationUrl: { type: 'string', format: 'uri' },
      provider: { type: 'object', required: ['organization', 'url'], properties: { organization: { type: 'string' }, url: { type: 'string' } } },
      capabilities: {
        type: 'object',
        properties: {
          streaming: { type: 'boolean' },
          pushNotifications: { type: 'boolean' },
          stateTransitionHistory: { type: 'boolean' },
          extensions: { type: 'array', items: { type: 'object', required: ['uri'], properties: { uri: { type: 'string' }, required: { type: 'boolean' }, params: { type: 'object' } } } },
        },
      },
      // HTTPAuthSecurityScheme: type 'http' and the scheme name.
      securitySchemes: {
        type: 'object',
        additionalProperties: { type: 'object', required: ['type', 'scheme'], properties: { type: { const: 'http' }, scheme: { type: 'string' }, description: { type: 'string' } } },
      },
      security: { type: 'array', items: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } },
      defaultInputModes: { type: 'array', items: { type: 'string' } },
      defaultOutputModes: { type: 'array', items: { type: 'string' } },
      skills: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['id', 'name', 'description', 'tags'],
          properties: { id: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, examples: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
  };

  it('is a valid A2A v0.3 agent card', async () => {
    const res = await server.call('GET', '/.well-known/agent-card.json', { unchecked: true });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const ajv = new Ajv({ strict: true, allErrors: true });
    (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
    const validate = ajv.compile(AGENT_CARD_V03);
    expect(validate(res.body), ajv.errorsText(validate.errors)).toBe(true);
  });

  it('says what the spec says of it, and points to the landing page', async () => {
    const card = (await server.call('GET', '/.well-known/agent-card.json', { unchecked: true })).body;
    expect(card.protocolVersion).toBe('0.3.0');
    expect(card.version).toBe('1.0.0');
    expect(card.url).toBe(`${BASE}${V1}`);
    expect(card.preferredTransport).toBe('HTTP+JSON');
    expect(card.supportedInterfaces).toEqual([{ url: `${BASE}${V1}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]);
    expect(card.capabilities).toMatchObject({ streaming: false, pushNotifications: false, stateTransitionHistory: true });
    expect(card.capabilities.extensions[0].params.supportedChains).toEqual([8453]);
    expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect(card.defaultOutputModes).toEqual(['application/json']);
    expect(card.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(card.security).toEqual([{ bearer: [] }]);
    expect(card.documentationUrl).toBe(`${BASE}/agents`);
    expect(card.description).toContain(MCP_URL);
    const skill = (await server.call('GET', `${V1}/skill.json`)).body;
    const served = skill.loops.filter((l: { status: string }) => l.status === 'available').map((l: { id: string }) => l.id);
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(served);
    expect(served).toEqual(expect.arrayContaining(['discover', 'create', 'trade']));
    await expectResolves([card.documentationUrl, card.capabilities.extensions[0].uri, card.url.replace(/\/api\/agent\/v1$/, `${V1}/mcp-discovery`)]);
  });
});

describe('over MCP', () => {
  it('serves svc_get_catalog and svc_get_skill with the same content, and tools/list equals catalog.json tools', async () => {
    const base = await server.runtime.listen();
    const client = new Client({ name: 'svc-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      const { tools } = await client.listTools();
      const doc = (await server.call('GET', `${V1}/catalog.json`)).body;
      const pick = (t: Record<string, unknown>) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations });
      expect(tools.map(pick)).toEqual(doc.tools.map(pick));

      const skill = (await client.callTool({ name: 'svc_get_skill', arguments: {} })) as { isError?: boolean; structuredContent?: unknown };
      expect(skill.isError ?? false).toBe(false);
      expect(skill.structuredContent).toEqual((await server.call('GET', `${V1}/skill.json`)).body);
      const catalog = (await client.callTool({ name: 'svc_get_catalog', arguments: {} })) as { structuredContent?: { capabilities: unknown[] } };
      expect(catalog.structuredContent?.capabilities).toHaveLength(agentCaps.length);
    } finally {
      await client.close();
    }
  });
});
