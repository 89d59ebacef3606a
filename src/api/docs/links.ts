// Where every public discovery document lives, so each document links the others from one table.

const V1 = '/api/agent/v1';

/** Paths of the discovery documents (absolute URL paths on the service's host). */
export const DOC_PATHS = {
  landing: '/agents',
  mcpDiscovery: `${V1}/mcp-discovery`,
  authDiscovery: `${V1}/auth-discovery`,
  openapi: `${V1}/openapi.json`,
  catalog: `${V1}/catalog.json`,
  skillMarkdown: `${V1}/skill.md`,
  skillJson: `${V1}/skill.json`,
  agentContract: `${V1}/agent-contract`,
  agentCard: '/.well-known/agent-card.json',
} as const;

export interface Site {
  publicBaseUrl: string;
  mcpUrl: string;
  chainId: number;
  environment: 'live' | 'test';
}

export interface DocumentLinks {
  apiBase: string;
  mcp: string;
  protectedResourceMetadata: string;
  landing: string;
  mcpDiscovery: string;
  authDiscovery: string;
  openapi: string;
  catalog: string;
  skillMarkdown: string;
  skillJson: string;
  agentContract: string;
  agentCard: string;
}

const trim = (url: string): string => url.replace(/\/+$/, '');

/** Absolute URLs of every discovery document and of the MCP endpoint. */
export function documentLinks(site: Site): DocumentLinks {
  const base = trim(site.publicBaseUrl);
  const mcp = trim(site.mcpUrl);
  return {
    apiBase: `${base}${V1}`,
    mcp,
    protectedResourceMetadata: `${mcp}/.well-known/oauth-protected-resource`,
    landing: `${base}${DOC_PATHS.landing}`,
    mcpDiscovery: `${base}${DOC_PATHS.mcpDiscovery}`,
    authDiscovery: `${base}${DOC_PATHS.authDiscovery}`,
    openapi: `${base}${DOC_PATHS.openapi}`,
    catalog: `${base}${DOC_PATHS.catalog}`,
    skillMarkdown: `${base}${DOC_PATHS.skillMarkdown}`,
    skillJson: `${base}${DOC_PATHS.skillJson}`,
    agentContract: `${base}${DOC_PATHS.agentContract}`,
    agentCard: `${base}${DOC_PATHS.agentCard}`,
  };
}
