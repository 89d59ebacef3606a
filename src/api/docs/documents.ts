/**
 * The public discovery documents that are not capabilities — the landing page, the agent-contract
 * page, skill.md and the agent card — as fixed GET routes, each rendered once from the skill
 * object. (skill.json, catalog.json, openapi.json and mcp-discovery are catalog capabilities.)
 */
import { buildAgentCard } from './agent-card.ts';
import { agentContractPage } from './agent-contract-page.ts';
import { PAGE_HEADERS } from './html.ts';
import { landingPage } from './landing-page.ts';
import { DOC_PATHS, type Site } from './links.ts';
import type { Skill } from './skill-schema.ts';
import { renderSkillMarkdown } from './skill-markdown.ts';

export interface StaticDocument {
  path: string;
  headers: Record<string, string>;
  body: string;
}

const CACHE = { 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff' };

export function discoveryDocuments(skill: Skill, site: Site): StaticDocument[] {
  // Documents under the agent prefix name the version they describe, like every agent response.
  const versioned = { 'Svc-Version': skill.version };
  return [
    { path: DOC_PATHS.landing, headers: PAGE_HEADERS, body: landingPage(skill) },
    { path: DOC_PATHS.agentContract, headers: { ...PAGE_HEADERS, ...versioned }, body: agentContractPage(skill) },
    { path: DOC_PATHS.skillMarkdown, headers: { 'Content-Type': 'text/markdown; charset=utf-8', ...CACHE, ...versioned }, body: renderSkillMarkdown(skill) },
    {
      path: DOC_PATHS.agentCard,
      // Any origin may read the card (A2A clients fetch it cross-origin); it holds nothing private.
      headers: { 'Content-Type': 'application/json; charset=utf-8', ...CACHE, 'Access-Control-Allow-Origin': '*' },
      body: JSON.stringify(buildAgentCard(skill, site), null, 2),
    },
  ];
}
