// POST /register: the four registration paths of the spec; closed paths answer 403 FEATURE_DISABLED
// with reason AGENT_REGISTRATION_CLOSED. The raw key is returned once and never replayed.
import { z } from 'zod';
import { AgentTierSchema, EvmAddress, IsoTimestamp } from '../schemas.ts';
import { defineCapability, Reply } from '../types.ts';

const Name = z.string().trim().min(1).max(64);
export const WalletProofFields = {
  walletAddress: EvmAddress,
  walletSignature: z.string().min(1).max(1024),
  proofNonce: z.string().min(1).max(256),
  signatureTimestamp: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
};

const RegisterBody = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('wallet'), name: Name, ...WalletProofFields }),
  z.strictObject({ kind: z.literal('claim'), name: Name, ownerEmail: z.email().max(254), ...WalletProofFields }),
  z.strictObject({ kind: z.literal('email'), name: Name, email: z.email().max(254) }),
  z.strictObject({ kind: z.literal('anonymous'), name: Name, humanCheckToken: z.string().min(1).max(4096) }),
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
  apiKey: z.object({
    id: z.uuid(),
    /** The raw key, shown once; null on an Idempotency-Key replay. */
    key: z.string().nullable(),
    prefix: z.string(),
    status: z.enum(['dormant', 'active']),
    tier: AgentTierSchema,
    scopes: z.array(z.string()),
    expiresAt: IsoTimestamp.nullable(),
  }),
  links: z.object({ me: z.string(), recoverKey: z.string(), authDiscovery: z.string() }),
});

export const register = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/register',
  category: 'identity',
  summary: 'Register an agent',
  description:
    'Creates an agent and its first API key on one of four paths (anonymous, email, wallet, claim). The wallet path takes an EIP-191 signature over the agent-register template of GET /auth-discovery and returns an active execute key with no expiry. The key is in the response once; an Idempotency-Key replay returns the same agent with apiKey.key null.',
  tier: null,
  rateClass: 'write',
  idempotent: false,
  mcp: { tool: 'svc_register_agent' },
  input: { body: RegisterBody },
  output: RegisterResponse,
  outputName: 'AgentRegistrationResponse',
  successStatus: 201,
  errors: ['FEATURE_DISABLED', 'WALLET_PROOF_INVALID', 'WALLET_ALREADY_BOUND'],
  redactForReplay: (body) => ({ ...body, apiKey: { ...body.apiKey, key: null } }),
  handler: async (ctx, { body }) => {
    const registration = ctx.services.registration;
    // Only the wallet path can be opened in this release (config refuses the others), so any other
    // kind is a closed path.
    if (body.kind !== 'wallet') registration.assertOpen(body.kind);
    const { agent, key, keyRecord } = await registration.registerWallet(body as Extract<typeof body, { kind: 'wallet' }>);
    return new Reply(
      {
        agent: { id: agent.id, kind: 'agent' as const, name: agent.name, walletAddress: agent.walletAddress, email: agent.email, registrationPath: 'wallet' as const },
        apiKey: {
          id: keyRecord.id,
          key,
          prefix: keyRecord.prefix,
          status: keyRecord.status as 'active',
          tier: keyRecord.tier,
          scopes: keyRecord.scopes,
          expiresAt: keyRecord.expiresAt?.toISOString() ?? null,
        },
        links: { me: '/api/agent/v1/me', recoverKey: '/api/agent/v1/keys/recover', authDiscovery: '/api/agent/v1/auth-discovery' },
      },
      201,
    );
  },
});
