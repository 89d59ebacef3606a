// GET /me: the agent identity resource: the spec's fields, plus apiKeyId (the calling key, which a wallet proof names).
import { z } from 'zod';
import { AgentCapabilitySchema, AgentTierSchema, EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';
import { reachableBy } from '../../../services/identity/profile.ts';
import { defineCapability } from '../types.ts';
import { ReputationSubjectPayloadWire } from '../reputation/shapes.ts';

export const FillAllowanceSchema = z.object({
  enabled: z.boolean(),
  freePerMonth: z.number().int().nonnegative(),
  freeUsed: z.number().int().nonnegative(),
  freeRemaining: z.number().int().nonnegative(),
  paidRemaining: z.number().int().nonnegative(),
  remaining: z.number().int().nonnegative(),
  resetsOn: IsoTimestamp,
  packs: z.array(z.object({ fills: z.number().int().positive(), usdCents: z.number().int().positive() })),
});

const V1 = '/api/agent/v1';

export const getMe = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/me',
  category: 'identity',
  summary: 'Agent identity',
  description:
    'The calling agent: identity, the id of the calling key (apiKeyId: the {apiKeyId} of a wallet proof), the calling key\'s tier and scopes, the capabilities that tier reaches, rate limits, data-plane budget, reputation (tier, rank and gates; null without a bound wallet), fill allowance (null without a bound wallet; free fills follow the reputation tier), environment, API version and links (rotateKey carries this key\'s id).',
  tier: 'read-only',
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_me' },
  output: z.object({
    id: z.uuid(),
    kind: z.literal('agent'),
    name: z.string(),
    walletAddress: EvmAddress.nullable(),
    email: z.string().nullable(),
    emailVerified: z.boolean(),
    apiKeyId: z.uuid().describe('The id of the API key making this call: {apiKeyId} in a wallet proof (svc-mcp-auth), and the key links.rotateKey rotates'),
    tier: AgentTierSchema,
    scopes: z.array(z.string()),
    capabilities: z.array(AgentCapabilitySchema),
    humanIdVerified: z.boolean(),
    chainBindings: z.array(z.object({ chainId: z.number().int().positive() })),
    rateLimits: z.object({
      windowSeconds: z.number().int().positive(),
      readPerMinute: z.number().int().nonnegative(),
      writePerMinute: z.number().int().nonnegative(),
      dataPerMinute: z.number().int().nonnegative(),
    }),
    dataPlane: z.object({ framesPerMarketPerMinute: z.number().int().nonnegative(), dataPerMinute: z.number().int().nonnegative() }),
    reputation: ReputationSubjectPayloadWire.nullable().describe("the bound wallet's black-box reputation: subject, tier, rank and the gates the tier sets (docs/reputation.md); null without a bound wallet"),
    fills: FillAllowanceSchema.nullable(),
    environment: z.enum(['live', 'test']),
    version: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    links: z.object({
      docs: z.string(),
      openapi: z.string(),
      rotateKey: z.string(),
      authDiscovery: z.string(),
      webhooksDiscovery: z.string(),
      mcpDiscovery: z.string(),
      eventsDiscovery: z.string(),
      marketDataDiscovery: z.string(),
      faucet: z.string().optional().describe('test funds for the bound wallet (GET for the terms, POST to ask); only where a faucet runs (the embedded test environment)'),
      ledgerProof: z.string().nullable().describe("the bound wallet's committed play-money balances with Merkle proofs; null without a bound wallet"),
    }),
  }),
  outputName: 'AgentIdentity',
  errors: ['FORBIDDEN'],
  handler: async (ctx) => {
    const { keyId, ...me } = await ctx.services.profile.me(ctx.principal);
    return {
      ...me,
      apiKeyId: keyId,
      capabilities: reachableBy(ctx.documents.agentCapabilities(), me.tier),
      version: ctx.apiVersion,
      links: {
        docs: `${V1}/skill.md`,
        openapi: `${V1}/openapi.json`,
        rotateKey: `${V1}/keys/${keyId}/rotate`,
        authDiscovery: `${V1}/auth-discovery`,
        webhooksDiscovery: `${V1}/webhooks/discovery`,
        mcpDiscovery: `${V1}/mcp-discovery`,
        eventsDiscovery: `${V1}/events/discovery`,
        marketDataDiscovery: `${V1}/market-data/discovery`,
        ...(ctx.services.faucet.terms().enabled ? { faucet: `${V1}/faucet` } : {}),
        ledgerProof: me.walletAddress ? `${V1}/ledger/proof/${me.walletAddress}` : null,
      },
    };
  },
});
