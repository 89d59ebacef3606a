/**
 * GET /.well-known/agent-card.json: a discovery-only A2A agent card (protocol 0.3.0 fields, plus
 * the 1.0 `supportedInterfaces` that 0.3 readers ignore). svc speaks its own REST API and MCP, not
 * A2A task messaging: the card says where those are and what the agent loops are, one skill per
 * loop the server serves in full. Built from the skill object and the site settings.
 */
import type { Site } from './links.ts';
import { AGENT_CARD_VERSION } from './skill.ts';
import type { Skill } from './skill-schema.ts';

export const A2A_PROTOCOL_VERSION = '0.3.0';
/** The card's extension that names the EVM chains svc serves; its URI resolves to the landing page section. */
export const EVM_CHAINS_EXTENSION = 'evm-chains';

export function buildAgentCard(skill: Skill, site: Site) {
  const l = skill.links;
  const base = site.publicBaseUrl.replace(/\/+$/, '');
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: 'svc',
    description: `${skill.description} This card is for discovery: call the REST API at url with a bearer API key, or the MCP endpoint ${l.mcp} (see ${l.mcpDiscovery}); A2A task messaging is not served.`,
    url: l.apiBase,
    preferredTransport: 'HTTP+JSON',
    additionalInterfaces: [{ url: l.apiBase, transport: 'HTTP+JSON' }],
    // A2A 1.0 name of the same interface list.
    supportedInterfaces: [{ url: l.apiBase, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
    provider: { organization: 'svc', url: base },
    version: AGENT_CARD_VERSION,
    documentationUrl: l.landing,
    capabilities: {
      streaming: false,
      pushNotifications: false,
      stateTransitionHistory: true,
      extensions: [
        {
          uri: `${l.landing}#${EVM_CHAINS_EXTENSION}`,
          description: `The EVM chains svc serves markets on; transactions are prepared for the agent to sign and send on chain ${site.chainId}.`,
          required: false,
          params: { supportedChains: [site.chainId] },
        },
      ],
    },
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: `API key: ${skill.auth.header} (alias ${skill.auth.alias}). Register at ${skill.auth.registration.url}; read ${l.mcpDiscovery} first.` },
    },
    security: [{ bearer: [] as string[] }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json'],
    skills: skill.loops
      .filter((loop) => loop.status === 'available')
      .map((loop) => ({
        id: loop.id,
        name: loop.name,
        description: `${loop.description} Steps: ${loop.steps.map((s) => `${s.rest}${s.tool ? ` (MCP ${s.tool})` : ' (REST only)'}`).join(', then ')}.`,
        tags: loop.tags,
        examples: loop.examples,
      })),
    supportsAuthenticatedExtendedCard: false,
  };
}
