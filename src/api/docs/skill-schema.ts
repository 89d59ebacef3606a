// The shape of the skill document (GET /skill.json, rendered by /skill.md, /agents and the agent card); built in skill.ts.
import { z } from 'zod';
import { AgentTierSchema } from '../../wire/schemas.ts';
import { INSTALL_CLIENTS } from './install-snippets.ts';

const StepSchema = z.object({
  /** 'METHOD /path' as in AgentCapability. */
  capability: z.string(),
  /** 'METHOD /full/path' to call over REST. */
  rest: z.string(),
  method: z.string(),
  path: z.string(),
  /** The MCP tool of this step; null when the spec keeps it REST-only. */
  tool: z.string().nullable(),
  restOnly: z.string().nullable(),
  requiredTier: AgentTierSchema.nullable(),
  scopes: z.array(z.string()),
  summary: z.string(),
  note: z.string(),
});

const LoopSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  /** available: every step is served; partial: some are; not-yet-available: none is. */
  status: z.enum(['available', 'partial', 'not-yet-available']),
  steps: z.array(StepSchema),
  /** Steps the spec names that this server does not serve yet ('METHOD /path'). */
  pending: z.array(z.string()),
  tags: z.array(z.string()),
  examples: z.array(z.string()),
});

const Bounds = z.object({ minLength: z.number().int(), maxLength: z.number().int() });

export const SkillSchema = z.object({
  name: z.literal('svc'),
  title: z.string(),
  description: z.string(),
  /** The agent API date-version these documents describe. */
  version: z.string(),
  chainId: z.number().int(),
  environment: z.enum(['live', 'test']),
  links: z.object({
    apiBase: z.string(),
    mcp: z.string(),
    protectedResourceMetadata: z.string(),
    landing: z.string(),
    mcpDiscovery: z.string(),
    authDiscovery: z.string(),
    openapi: z.string(),
    catalog: z.string(),
    skillMarkdown: z.string(),
    skillJson: z.string(),
    agentContract: z.string(),
    agentCard: z.string(),
  }),
  loops: z.array(LoopSchema),
  mcp: z.object({
    url: z.string(),
    transport: z.literal('streamable-http'),
    specVersion: z.string(),
    toolCount: z.number().int(),
    restOnlyCount: z.number().int(),
    install: z.array(z.object({ client: z.enum(INSTALL_CLIENTS), description: z.string(), format: z.enum(['json', 'shell', 'toml']), snippet: z.string() })),
  }),
  auth: z.object({
    scheme: z.literal('bearer'),
    header: z.string(),
    alias: z.string(),
    publicCapabilities: z.array(z.string()),
    /** The MCP tools a session without a key may call: the tools of the public capabilities. */
    publicTools: z.array(z.string()),
    tiers: z.array(z.object({ tier: AgentTierSchema, includes: z.array(AgentTierSchema), defaultScopes: z.array(z.string()) })),
    registration: z.object({
      url: z.string(),
      statusUrl: z.string(),
      note: z.string(),
      paths: z.array(z.object({ kind: z.enum(['anonymous', 'email', 'wallet', 'claim']), requires: z.array(z.string()), grantsScopes: z.array(z.string()), summary: z.string() })),
    }),
    walletProof: z.object({
      template: z.string(),
      fields: z.array(z.string()),
      signing: z.string(),
      payloadHash: z.string(),
      nonceEndpoint: z.string(),
      windowSeconds: z.number().int(),
      /** Where each placeholder of the template comes from, in template order. */
      placeholders: z.array(z.object({ placeholder: z.string(), source: z.string() })),
      elevatedTools: z.array(z.object({ tool: z.string(), scope: z.string(), resourceId: z.string(), walletRequired: z.boolean() })),
    }),
    idempotency: z.object({ header: z.literal('Idempotency-Key'), toolArgument: z.literal('idempotencyKey'), ...Bounds.shape, semantics: z.string() }),
  }),
  limits: z.object({
    rateWindowSeconds: z.number().int(),
    rateLimits: z.array(z.object({ caller: z.string(), read: z.number().int(), write: z.number().int() })),
    rateHeaders: z.array(z.string()),
    uncharged: z.array(z.string()),
    paging: z.array(z.object({ capability: z.string(), parameter: z.string(), minimum: z.number().nullable(), maximum: z.number().nullable(), default: z.number().nullable() })),
    idempotencyKey: Bounds,
    proofNonce: Bounds,
    walletProofWindowSeconds: z.number().int(),
    anonymousKeyTtlHours: z.number(),
    tradeDefaults: z.object({ slippageBpsDefault: z.number().int(), slippageBpsMax: z.number().int(), recommendedRefreshMs: z.number().int() }),
  }),
  errors: z.object({
    contentType: z.literal('application/problem+json'),
    shape: z.record(z.string(), z.string()),
    typeBase: z.string(),
    mcp: z.string(),
    retry: z.string(),
    codes: z.array(z.object({ code: z.string(), status: z.number().int(), title: z.string() })),
  }),
  versioning: z.object({ header: z.literal('Svc-Version'), current: z.string(), supported: z.array(z.string()), whenOmitted: z.string(), mcpSpecVersion: z.string(), agentCardVersion: z.string() }),
  guarantees: z.array(z.object({ id: z.string(), title: z.string(), text: z.string() })),
  /** The test-funds faucet (docs/faucet.md); null on a live environment, or when the catalog has none. */
  testFunds: z
    .object({
      terms: StepSchema,
      request: StepSchema,
      cli: z.string(),
      /** What one grant pays, in whole tokens (GET /faucet has the base units and token addresses). */
      amounts: z.array(z.object({ asset: z.string(), whole: z.string() })),
      limits: z.object({ windowSeconds: z.number().int(), perWallet: z.number().int(), perKey: z.number().int() }),
      note: z.string(),
    })
    .nullable(),
  /** How to check a ledger balance against the chain without trusting svc; null when the catalog has no proof read. */
  ledgerProof: z
    .object({
      read: StepSchema,
      /** The same read on the consumer surface. */
      consumerPath: z.string(),
      contractView: z.string(),
      leafEncoding: z.string(),
      steps: z.array(z.string()),
    })
    .nullable(),
});

export type Skill = z.output<typeof SkillSchema>;
export type SkillLoop = Skill['loops'][number];
export type SkillStep = SkillLoop['steps'][number];
