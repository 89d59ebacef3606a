// GET /mcp-discovery: how an agent reaches the MCP surface, authenticates, and registers.
import { EVENT_TRANSPORTS } from '../../events/transports.ts';
import { z } from 'zod';
import { ANONYMOUS_KEY_TTL_MS, ANONYMOUS_SCOPES, CLAIM_PENDING_SCOPES, EMAIL_SCOPES, WALLET_SCOPES } from '../../../core/entitlement.ts';
import { EMAIL_LINK_TTL_MS, OWNER_AGENT_LIMIT } from '../../../services/identity/email-links.ts';
import { howToOpen, OPERATOR_AGENT_COMMAND } from '../../../core/registration-paths.ts';
import { WALLET_PROOF_INPUT_FIELDS, WALLET_PROOF_TEMPLATE, WALLET_PROOF_WINDOW_SECONDS } from '../../../core/wallet-proof.ts';
import { INSTALL_CLIENTS } from '../../docs/install-snippets.ts';
import { DOC_PATHS } from '../../docs/links.ts';
import { defineCapability } from '../types.ts';
import { AGENT_LINKS } from './keys-shared.ts';

const V1 = '/api/agent/v1';
const PATH_KINDS = ['anonymous', 'email', 'wallet', 'claim'] as const;
type RegistrationPathKind = (typeof PATH_KINDS)[number];
const HOURS = (ms: number) => ms / 3_600_000;
const Status = z.enum(['open', 'closed']);
/** A closed path's way in: the variable and value the operator starts svc with; null when the path is open. */
const HowToOpen = z.object({ variable: z.literal('REGISTRATION_PATHS'), value: z.string(), example: z.string() }).nullable();

const PathSchema = z.object({
  kind: z.enum(['email', 'wallet', 'anonymous']),
  description: z.string(),
  requires: z.array(z.enum(['email', 'walletProof', 'humanCheckToken'])),
  grantsScopes: z.array(z.string()),
  ttlHours: z.number().int().nullable(),
  status: Status,
  howToOpen: HowToOpen,
});

export const mcpDiscovery = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/mcp-discovery',
  category: 'discovery',
  summary: 'MCP and registration discovery',
  description:
    'The MCP surface (specification revision, endpoint, authentication, wallet-proof elevation, install snippets for common MCP clients, the canonical workflows as tool sequences, REST-only capabilities), self-serve registration (each path with what it requires, the scopes it grants, its key lifetime, whether the operator has opened it and, when closed, the REGISTRATION_PATHS value that opens it; the claim path; the operator command that makes an agent without any path; the human-check site key and the upgrade URLs), and links to every other discovery document.',
  tier: null,
  rateClass: 'uncharged',
  idempotent: true,
  mcp: { tool: 'svc_get_mcp_discovery' },
  output: z.object({
    spec: z.object({ name: z.literal('model-context-protocol'), version: z.literal('2025-11-25'), specUrl: z.string() }),
    endpoints: z.object({
      remote: z.object({
        url: z.string(),
        transport: z.literal('streamable-http'),
        auth: z.literal('api-key-bearer'),
        protectedResourceMetadata: z.string(),
        status: z.literal('live'),
      }),
    }),
    authentication: z.object({
      scheme: z.literal('bearer'),
      header: z.string(),
      alias: z.string(),
      keyless: z.string(),
      /** The tools a session without a key may call (their REST twins need no credential). */
      keylessTools: z.array(z.string()),
    }),
    toolElevation: z.object({
      walletProof: z.object({
        template: z.string(),
        fields: z.array(z.string()),
        /** Where each placeholder of the template comes from, in template order. */
        placeholders: z.array(z.object({ placeholder: z.string(), source: z.string() })),
        elevatedTools: z.array(z.object({ tool: z.string(), scope: z.string(), resourceId: z.string(), walletRequired: z.boolean() })),
        missingProof: z.string(),
        windowSeconds: z.number().int(),
        nonceEndpoint: z.string(),
        authDiscovery: z.string(),
      }),
    }),
    installSnippets: z.array(z.object({ client: z.enum(INSTALL_CLIENTS), description: z.string(), format: z.enum(['json', 'shell', 'toml']), snippet: z.string() })),
    workflows: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        status: z.enum(['available', 'partial', 'not-yet-available']),
        steps: z.array(z.object({ tool: z.string().nullable(), rest: z.string(), note: z.string() })),
      }),
    ),
    registration: z.object({
      registerUrl: z.string(),
      paths: z.array(PathSchema),
      operatorIssued: z.object({ command: z.string(), description: z.string() }),
      claim: z.object({
        status: Status,
        description: z.string(),
        requires: z.array(z.enum(['walletProof', 'ownerEmail'])),
        grantsScopes: z.array(z.string()),
        grantsScopesAtClaim: z.array(z.string()),
        claimLinkTtlHours: z.number().int(),
        maxAgentsPerOwner: z.number().int(),
        howToOpen: HowToOpen,
      }),
      turnstileSiteKey: z.string().nullable(),
      humanCheck: z.object({ kind: z.enum(['pow', 'turnstile']), challengeUrl: z.string() }),
      upgradeUrls: z.object({ bindEmail: z.string(), bindWallet: z.string(), recoverKey: z.string() }),
    }),
    surfacePolicy: z.object({
      doctrineUrl: z.string(),
      intentionalRestOnly: z.array(z.object({ capability: z.string(), reason: z.string(), paths: z.array(z.string()) })),
      note: z.string(),
    }),
    referenceUrl: z.string(),
    links: z.object({
      landing: z.string(),
      skill: z.string(),
      skillJson: z.string(),
      catalog: z.string(),
      openapi: z.string(),
      agentCard: z.string(),
      agentContract: z.string(),
      authDiscovery: z.string(),
    }),
  }),
  outputName: 'McpDiscovery',
  errors: [],
  handler: async (ctx) => {
    const { registration, humanCheck } = ctx.services;
    const { site } = ctx.documents;
    const status = (path: RegistrationPathKind) => (registration.isOpen(path) ? ('open' as const) : ('closed' as const));
    const openPaths = PATH_KINDS.filter((p) => registration.isOpen(p));
    const opening = (path: RegistrationPathKind) => (registration.isOpen(path) ? null : howToOpen(path, openPaths));
    const restOnly = ctx.documents.restOnlyCapabilities();
    const skill = ctx.documents.skill();
    return {
      spec: { name: 'model-context-protocol' as const, version: '2025-11-25' as const, specUrl: 'https://modelcontextprotocol.io/specification/2025-11-25' },
      endpoints: {
        remote: {
          url: site.mcpUrl,
          transport: 'streamable-http' as const,
          auth: 'api-key-bearer' as const,
          protectedResourceMetadata: `${site.mcpUrl}/.well-known/oauth-protected-resource`,
          status: 'live' as const,
        },
      },
      authentication: {
        scheme: 'bearer' as const,
        header: 'Authorization: Bearer <API_KEY>',
        alias: 'X-API-Key: <API_KEY>',
        keyless:
          'initialize, ping, tools/list and the tools in keylessTools (their REST twins need no credential) work without a key; any other call without a key answers HTTP 401 with WWW-Authenticate resource_metadata.',
        keylessTools: skill.auth.publicTools,
      },
      toolElevation: {
        walletProof: {
          template: WALLET_PROOF_TEMPLATE,
          fields: WALLET_PROOF_INPUT_FIELDS,
          placeholders: skill.auth.walletProof.placeholders,
          elevatedTools: skill.auth.walletProof.elevatedTools,
          missingProof: 'An elevated tool called without walletSignature, signatureTimestamp and proofNonce answers isError with 401 WALLET_AUTH_REQUIRED (reason PROOF_MISSING); a proof that does not verify, 401 WALLET_PROOF_INVALID with its reason. Neither is kept as the answer of the idempotencyKey: retry with a fresh proof under the same key.',
          windowSeconds: WALLET_PROOF_WINDOW_SECONDS,
          nonceEndpoint: '/api/auth/nonce',
          authDiscovery: `${V1}/auth-discovery`,
        },
      },
      installSnippets: skill.mcp.install,
      workflows: skill.loops.map((loop) => ({
        name: loop.id,
        description: loop.description,
        status: loop.status,
        steps: loop.steps.map((step) => ({ tool: step.tool, rest: step.rest, note: step.note })),
      })),
      registration: {
        registerUrl: `${V1}/register`,
        paths: [
          {
            kind: 'anonymous' as const,
            description: 'A humanCheckToken (GET /human-check/challenge) gives an active read-only key that expires; bind an email or a wallet to keep the agent.',
            requires: ['humanCheckToken' as const],
            grantsScopes: [...ANONYMOUS_SCOPES],
            ttlHours: HOURS(ANONYMOUS_KEY_TTL_MS),
            status: status('anonymous'),
            howToOpen: opening('anonymous'),
          },
          {
            kind: 'email' as const,
            description: 'A magic link is mailed; the key is dormant until the link is opened.',
            requires: ['email' as const],
            grantsScopes: [...EMAIL_SCOPES],
            ttlHours: null,
            status: status('email'),
            howToOpen: opening('email'),
          },
          {
            kind: 'wallet' as const,
            description: 'An EIP-191 signature over the agent-register template gives an active execute key with no expiry; the wallet\'s own balance and allowances are the spend budget.',
            requires: ['walletProof' as const],
            grantsScopes: [...WALLET_SCOPES],
            ttlHours: null,
            status: status('wallet'),
            howToOpen: opening('wallet'),
          },
        ],
        claim: {
          status: status('claim'),
          description: `A wallet signature plus ownerEmail (the accountable person). The key reads and quotes at once; the owner is mailed a claim link valid ${HOURS(EMAIL_LINK_TTL_MS)} hours, and on the claim the agent gains its trading scopes and is labelled AI. One owner claims at most ${OWNER_AGENT_LIMIT} agents.`,
          requires: ['walletProof' as const, 'ownerEmail' as const],
          grantsScopes: [...CLAIM_PENDING_SCOPES],
          grantsScopesAtClaim: [...WALLET_SCOPES],
          claimLinkTtlHours: HOURS(EMAIL_LINK_TTL_MS),
          maxAgentsPerOwner: OWNER_AGENT_LIMIT,
          howToOpen: opening('claim'),
        },
        operatorIssued: {
          command: OPERATOR_AGENT_COMMAND,
          description: 'The operator of this service makes an agent and its API key (shown once) with this command, whether or not any path is open; while svc runs it reaches the running service over its local operator channel.',
        },
        turnstileSiteKey: humanCheck.siteKey,
        humanCheck: { kind: humanCheck.kind, challengeUrl: `${V1}/human-check/challenge` },
        upgradeUrls: { bindEmail: AGENT_LINKS.bindEmail, bindWallet: AGENT_LINKS.bindWallet, recoverKey: AGENT_LINKS.recoverKey },
      },
      surfacePolicy: {
        doctrineUrl: `${V1}/openapi.json`,
        intentionalRestOnly: [...restOnly, ...EVENT_TRANSPORTS],
        note: 'Every agent capability is an MCP tool except these, which the spec keeps REST-only by design.',
      },
      referenceUrl: `${V1}/openapi.json`,
      links: {
        landing: DOC_PATHS.landing,
        skill: DOC_PATHS.skillMarkdown,
        skillJson: DOC_PATHS.skillJson,
        catalog: DOC_PATHS.catalog,
        openapi: DOC_PATHS.openapi,
        agentCard: DOC_PATHS.agentCard,
        agentContract: DOC_PATHS.agentContract,
        authDiscovery: DOC_PATHS.authDiscovery,
      },
    };
  },
});
