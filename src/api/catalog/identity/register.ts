// POST /register: the four registration paths of the spec; closed paths answer 403 FEATURE_DISABLED
// with reason AGENT_REGISTRATION_CLOSED. The raw key is returned once and never replayed.
import { z } from 'zod';
import type { RecordedRegistration, RegisteredAgent } from '../../../services/identity/registration.ts';
import { EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';
import { AGENT_LINKS, ApiKeyIssued, issuedKeyBody } from './keys-shared.ts';
import { defineCapability, Reply } from '../types.ts';

// Names are shown on profiles and quoted in mail sent to owners: letters, digits, spaces and a few
// marks only, so no control characters, no line breaks and no URLs. `svc agents create` applies the same rule.
export const AgentName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._'-]*$/u, "may hold letters, digits, spaces and . _ ' - (starting with a letter or digit)");
export const WalletProofFields = {
  walletAddress: EvmAddress,
  walletSignature: z.string().min(1).max(1024),
  proofNonce: z.string().min(1).max(256),
  signatureTimestamp: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
};

const RegisterBody = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('wallet'), name: AgentName, ...WalletProofFields }),
  z.strictObject({ kind: z.literal('claim'), name: AgentName, ownerEmail: z.email().max(254), ...WalletProofFields }),
  z.strictObject({ kind: z.literal('email'), name: AgentName, email: z.email().max(254) }),
  z.strictObject({ kind: z.literal('anonymous'), name: AgentName, humanCheckToken: z.string().min(1).max(4096) }),
]);

const RegisterResponse = z.object({
  agent: z.object({
    id: z.uuid(),
    kind: z.literal('agent'),
    name: z.string(),
    walletAddress: z.string().nullable(),
    email: z.string().nullable(),
    registrationPath: z.enum(['anonymous', 'email', 'wallet', 'claim']),
  }),
  apiKey: ApiKeyIssued,
  /** The link this registration mailed: the email path's magic link, or the owner's claim link. */
  emailLink: z.object({ purpose: z.enum(['verify-email', 'claim']), sentTo: z.string(), expiresAt: IsoTimestamp }).nullable(),
  links: z.object({ me: z.string(), recoverKey: z.string(), authDiscovery: z.string(), bindEmail: z.string(), bindWallet: z.string() }),
});

export const register = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/register',
  category: 'identity',
  summary: 'Register an agent',
  description:
    'Creates an agent and its first API key on one of four paths. anonymous: humanCheckToken (GET /human-check/challenge) gives an active read-only key (markets:read) that expires in 24 hours. email: a magic link is mailed; the key is dormant until it is opened. wallet: an EIP-191 signature over the agent-register template of GET /auth-discovery gives an active execute key with no expiry. claim: the same signature plus ownerEmail; the key reads and quotes at once and gains trading scopes when the owner opens the claim link (valid 24 h; one owner claims at most 3 agents). Closed paths answer 403 FEATURE_DISABLED (reason AGENT_REGISTRATION_CLOSED). The key is in the response once; an Idempotency-Key replay returns apiKey.key null.',
  tier: null,
  rateClass: 'write',
  idempotent: false,
  mcp: { tool: 'svc_register' },
  input: { body: RegisterBody },
  output: RegisterResponse,
  outputName: 'AgentRegistrationResponse',
  successStatus: 201,
  errors: ['FEATURE_DISABLED', 'WALLET_PROOF_INVALID', 'WALLET_ALREADY_BOUND', 'HUMAN_CHECK_FAILED', 'OWNER_AGENT_LIMIT', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
  redactForReplay: (body) => ({ ...body, apiKey: { ...body.apiKey, key: null } }),
  handler: async (ctx, { body }) => registrationReply(await ctx.services.registration.register(body, ctx.clientIp, ctx.recordEffect ?? undefined)),
  // A retry after a crash between the registration's commit and its stored answer: the same agent, its key null.
  replayEffect: async (ctx, ref) => registrationReply(await ctx.services.registration.recordedRegistration(ref)),
});

function registrationReply({ agent, key, keyRecord, emailLink }: RegisteredAgent | RecordedRegistration): Reply<z.output<typeof RegisterResponse>> {
  return new Reply(
    {
      agent: { id: agent.id, kind: 'agent' as const, name: agent.name, walletAddress: agent.walletAddress, email: agent.email, registrationPath: agent.registrationPath as 'wallet' },
      apiKey: issuedKeyBody(keyRecord, key),
      emailLink: emailLink && { purpose: emailLink.purpose as 'claim', sentTo: emailLink.sentTo, expiresAt: emailLink.expiresAt.toISOString() },
      links: AGENT_LINKS,
    },
    201,
  );
}
