import { describe, expect, it } from 'vitest';
import { CATALOG } from '../catalog/index.ts';
import { ruleToolName, SPEC_TOOL_NAMES, toolNameOf } from './tool-names.ts';

describe('MCP tool names', () => {
  it('derive from the REST path by one rule', () => {
    expect(ruleToolName('GET', '/discover/markets')).toBe('svc_discover_markets');
    expect(ruleToolName('GET', '/discover/markets/:address')).toBe('svc_discover_markets_by_address');
    expect(ruleToolName('GET', '/discover/markets/:address/chart')).toBe('svc_discover_markets_chart');
    expect(ruleToolName('POST', '/negotiate/:id/prepare-deploy')).toBe('svc_negotiate_prepare_deploy');
    expect(ruleToolName('GET', '/me')).toBe('svc_get_me');
    expect(ruleToolName('GET', '/openapi.json')).toBe('svc_get_openapi');
    expect(ruleToolName('POST', '/api/auth/nonce')).toBe('svc_auth_nonce');
    expect(ruleToolName('GET', '/keys/:keyId')).toBe('svc_get_keys_by_key_id');
  });

  it('use the spec-given names where the spec gives one', () => {
    expect(toolNameOf('POST', '/identity/approve-links')).toBe('svc_approve_link_consents');
    expect(toolNameOf('POST', '/orderbook/confirm-cancel')).toBe('svc_confirm_order_cancel');
  });

  it('are unique across the catalog, and every tool follows the rule or the spec', () => {
    const tools = CATALOG.flatMap((c) => (c.mcp && 'tool' in c.mcp ? [{ cap: c, tool: c.mcp.tool }] : []));
    expect(new Set(tools.map((t) => t.tool)).size).toBe(tools.length);
    for (const { cap, tool } of tools) expect([SPEC_TOOL_NAMES[cap.name], ruleToolName(cap.method, cap.path)]).toContain(tool);
  });
});
