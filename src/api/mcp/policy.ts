/**
 * Who may reach the MCP endpoint from a browser (Origin) and on which Host, and the RFC 9728
 * protected-resource metadata that tells a client how to authenticate. docs/mcp.md "Origins".
 */
import { ALL_SCOPES } from '../../core/scopes.ts';

export interface OriginPolicy {
  /** Exact origins (scheme://host[:port]) allowed besides loopback ones. */
  allowed: ReadonlySet<string>;
  /** The MCP URL is on a loopback host: only loopback Hosts and Origins are answered (DNS rebinding). */
  loopbackOnly: boolean;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Host header or URL host, port ignored. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/:\d+$/, '');
  return LOOPBACK.has(name);
}

export function originPolicy(mcpUrl: string, publicBaseUrl: string, extraOrigins: readonly string[]): OriginPolicy {
  const mcp = new URL(mcpUrl);
  return {
    allowed: new Set([mcp.origin, new URL(publicBaseUrl).origin, ...extraOrigins.map((o) => new URL(o).origin)]),
    loopbackOnly: isLoopbackHost(mcp.host),
  };
}

export function originAllowed(policy: OriginPolicy, origin: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null"
  }
  if (policy.allowed.has(parsed.origin)) return true;
  return policy.loopbackOnly && isLoopbackHost(parsed.host);
}

/** RFC 9728 metadata for the MCP endpoint: API keys travel as a bearer header; there is no OAuth server. */
export function protectedResourceMetadata(deps: { mcpUrl: string; publicBaseUrl: string }) {
  return {
    resource: deps.mcpUrl,
    bearer_methods_supported: ['header'],
    scopes_supported: [...ALL_SCOPES],
    resource_name: 'svc MCP endpoint',
    resource_documentation: `${deps.publicBaseUrl}/api/agent/v1/mcp-discovery`,
  };
}
