// GET /auth-discovery: every way to authenticate, with the exact templates the server verifies.
import { z } from 'zod';
import { WALLET_PROOF_TEMPLATES, type WalletProofKind } from '../../../core/auth-templates.ts';
import { SIWE_PREFERRED_FOR, siweExample, siweTemplate } from '../../../core/siwe.ts';
import { TRADE_DEFAULTS } from '../../../core/trade-defaults.ts';
import { WALLET_PROOF_INPUT_FIELDS, WALLET_PROOF_TEMPLATE, WALLET_PROOF_WINDOW_SECONDS } from '../../../core/wallet-proof.ts';
import { WALLET_SESSION_COOKIE, WALLET_SESSION_HEADER } from '../../../core/wallet-session.ts';
import { REGISTRATION_LIMITS, REGISTRATION_WINDOW_SECONDS } from '../../../services/identity/registration-limits.ts';
import { DATA_PLANE_LIMITS, RATE_LIMITS, RATE_WINDOW_MS } from '../../../services/rate-limit/limits.ts';
import { defineCapability } from '../types.ts';
import { AGENT_TIERS } from '../../../core/tiers.ts';

const Endpoint = z.object({ method: z.literal('POST'), path: z.string(), summary: z.string() });
const RATE_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

const USED_BY: Record<WalletProofKind, string[]> = {
  'agent-register': ['POST /api/agent/v1/register (kind wallet or claim)'],
  'agent-bind-wallet': ['POST /api/agent/v1/agents/me/bind-wallet'],
  'agent-key-recovery': ['POST /api/agent/v1/keys/recover'],
};

export const authDiscovery = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/auth-discovery',
  category: 'discovery',
  summary: 'Authentication discovery',
  description:
    'How to authenticate: the nonce and SIWE verify endpoints, the SIWE message template, the wallet-proof templates (agent-register, agent-bind-wallet, agent-key-recovery) with their placeholders {walletAddress} (lowercase), {nonce}, {chainId}, {timestamp} (Unix seconds), {agentName} (agent-register: the name being registered) and {agentId} (agent-bind-wallet: the calling agent), the signature policy, rate limits by tier and for registration, and trading defaults. Every template is exactly the one the server verifies.',
  tier: null,
  rateClass: 'uncharged',
  idempotent: true,
  mcp: { tool: 'svc_get_auth_discovery' },
  output: z.object({
    nonceEndpoint: Endpoint,
    verifyEndpoint: Endpoint,
    messageTemplates: z.array(z.object({ kind: z.literal('siwe'), template: z.string(), example: z.string(), preferredFor: z.array(z.string()) })),
    walletProof: z.object({
      nonceEndpoint: z.string(),
      templates: z.array(z.object({ kind: z.enum(['agent-register', 'agent-bind-wallet', 'agent-key-recovery']), template: z.string(), usedBy: z.array(z.string()) })),
      bodyFields: z.array(z.string()),
      elevationTemplate: z.string(),
    }),
    signaturePolicy: z.object({
      lifetime: z.object({ proofWindowSeconds: z.number().int(), nonceTtlSeconds: z.number().int(), description: z.string() }),
      retry: z.object({ description: z.string(), freshNonceOn: z.array(z.string()) }),
    }),
    rateLimit: z.object({ responseHeaders: z.array(z.string()), retryHeader: z.string(), guidance: z.string() }),
    agentApiRateLimits: z.object({
      tiers: z.array(z.object({ tier: z.string(), access: z.string(), readPerMinute: z.number().int(), writePerMinute: z.number().int() })),
      responseHeaders: z.array(z.string()),
      retryHeader: z.string(),
      dataPlane: z.object({ guidance: z.string() }),
    }),
    registrationRateLimits: z.object({
      paths: z.array(z.object({ path: z.string(), limit: z.number().int(), windowSeconds: z.number().int(), per: z.string(), description: z.string() })),
      responseHeaders: z.array(z.string()),
      retryHeader: z.string(),
      guidance: z.string(),
    }),
    tradeDefaults: z.object({ slippageBpsDefault: z.number().int().nonnegative(), slippageBpsMax: z.number().int().nonnegative(), recommendedRefreshMs: z.number().int().positive() }),
    notes: z.array(z.string()),
  }),
  outputName: 'AuthDiscovery',
  errors: [],
  handler: async (ctx) => {
    const siwe = ctx.documents.site;
    return {
      nonceEndpoint: { method: 'POST' as const, path: '/api/auth/nonce', summary: 'A single-use nonce (TTL 300 s) for a wallet proof or a SIWE message' },
      verifyEndpoint: { method: 'POST' as const, path: '/api/auth/verify', summary: `Sign in with Ethereum: verifies a signed SIWE message and opens a wallet session (cookie ${WALLET_SESSION_COOKIE}, or header ${WALLET_SESSION_HEADER})` },
      messageTemplates: [{ kind: 'siwe' as const, template: siweTemplate(siwe), example: siweExample(siwe), preferredFor: SIWE_PREFERRED_FOR }],
      walletProof: {
        nonceEndpoint: '/api/auth/nonce',
        templates: (Object.keys(WALLET_PROOF_TEMPLATES) as WalletProofKind[]).map((kind) => ({ kind, template: WALLET_PROOF_TEMPLATES[kind], usedBy: USED_BY[kind] })),
        bodyFields: WALLET_PROOF_INPUT_FIELDS,
        elevationTemplate: WALLET_PROOF_TEMPLATE,
      },
      signaturePolicy: {
        lifetime: {
          proofWindowSeconds: WALLET_PROOF_WINDOW_SECONDS,
          nonceTtlSeconds: WALLET_PROOF_WINDOW_SECONDS,
          description: 'signatureTimestamp (Unix seconds) must be within 300 s of the server time (GET /time: unixSeconds); a nonce expires 300 s after issue and is consumed by its first successful verification.',
        },
        retry: {
          description: 'A refused proof does not consume its nonce unless the refusal is NONCE_USED; on any refusal, fetch a fresh nonce, take a fresh timestamp and sign again. Never resend a signature that was accepted.',
          freshNonceOn: ['NONCE_USED', 'NONCE_EXPIRED', 'NONCE_UNKNOWN', 'TIMESTAMP_OUT_OF_WINDOW'],
        },
      },
      rateLimit: {
        responseHeaders: RATE_HEADERS,
        retryHeader: 'Retry-After',
        guidance: `Budgets are per ${RATE_WINDOW_MS / 1000}-second sliding window. RateLimit-Reset is the epoch second when the oldest charged request ages out. On 429, wait Retry-After seconds first.`,
      },
      agentApiRateLimits: {
        tiers: (['anonymous', ...AGENT_TIERS] as const).map((tier) => ({
          tier,
          access: tier === 'anonymous' ? 'keyless calls, per client address' : `keys of tier ${tier}`,
          readPerMinute: RATE_LIMITS[tier].read,
          writePerMinute: RATE_LIMITS[tier].write,
        })),
        responseHeaders: RATE_HEADERS,
        retryHeader: 'Retry-After',
        dataPlane: {
          guidance: `Market-surface publishing has its own per-agent budget: execute keys ${DATA_PLANE_LIMITS.execute.framesPerMarketPerMinute} frames per market per minute and ${DATA_PLANE_LIMITS.execute.dataPerMinute} in all (propose: ${DATA_PLANE_LIMITS.propose.framesPerMarketPerMinute} and ${DATA_PLANE_LIMITS.propose.dataPerMinute}); GET /me reports yours.`,
        },
      },
      registrationRateLimits: {
        paths: [
          { path: 'anonymous', ...REGISTRATION_LIMITS.anonymous },
          {
            path: 'email',
            ...REGISTRATION_LIMITS.email,
            description: `${REGISTRATION_LIMITS.email.description}; besides, at most ${REGISTRATION_LIMITS['email-address'].limit} registrations or bind-email requests per hour name any one email address (agent or owner email)`,
          },
          { path: 'wallet', ...REGISTRATION_LIMITS.wallet },
          { path: 'key-recovery', ...REGISTRATION_LIMITS['key-recovery'] },
        ].map((p) => ({ ...p, windowSeconds: REGISTRATION_WINDOW_SECONDS })),
        responseHeaders: RATE_HEADERS,
        retryHeader: 'Retry-After',
        guidance: 'Registration and key recovery have hourly budgets on top of the per-minute keyless write budget; every attempt counts, accepted or not. On 429, wait Retry-After seconds.',
      },
      tradeDefaults: { ...TRADE_DEFAULTS },
      notes: [
        'Send the API key as Authorization: Bearer <key> (alias X-API-Key). Writes need an Idempotency-Key header unless documented exempt.',
        'Wallet addresses in templates are lowercase; chainId is the release chain (GET /discover/chains).',
        'Registration paths and their status are in GET /mcp-discovery (registration.paths[].status).',
        'A key with no bound wallet cannot be recovered: bind a wallet (POST /agents/me/bind-wallet) to make recovery possible.',
      ],
    };
  },
});
