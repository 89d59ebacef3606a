// POST /keys/recover: a new key for the agent whose wallet signs svc-api-key-recovery:<wallet>:<nonce>.
import { z } from 'zod';
import type { RecoveredKey } from '../../../services/identity/agent-keys.ts';
import { defineCapability, Reply } from '../types.ts';
import { ApiKeyIssued, issuedKeyBody } from './keys-shared.ts';
import { WalletProofFields } from './register.ts';

export const recoverKey = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/keys/recover',
  category: 'identity',
  summary: 'Recover an API key with the bound wallet',
  description:
    'Proves control of the agent\'s bound wallet with an EIP-191 signature over svc-api-key-recovery:{walletAddress lowercase}:{nonce} (nonce from POST /api/auth/nonce, signatureTimestamp within 300 s). Every key the agent still has is revoked and one new key with the agent\'s entitlement is issued, shown once. An agent without a bound wallet cannot recover: 404 NO_AGENT_FOR_WALLET.',
  tier: null,
  rateClass: 'write',
  idempotent: false,
  destructive: true,
  mcp: { tool: 'svc_keys_recover' },
  input: { body: z.strictObject(WalletProofFields) },
  output: z.object({ agentId: z.uuid(), apiKey: ApiKeyIssued, revokedKeyIds: z.array(z.uuid()) }),
  outputName: 'RecoveredApiKey',
  successStatus: 201,
  errors: ['WALLET_PROOF_INVALID', 'NO_AGENT_FOR_WALLET', 'RATE_LIMITED'],
  redactForReplay: (body) => ({ ...body, apiKey: { ...body.apiKey, key: null } }),
  handler: async (ctx, { body }) => recoveryReply(await ctx.services.agentKeys.recover(body, ctx.recordEffect ?? undefined)),
  // A retry after a crash between the recovery's commit and its stored answer: the same key, null.
  replayEffect: async (ctx, ref) => recoveryReply(await ctx.services.agentKeys.recordedRecovery(ref)),
});

const recoveryReply = (recovered: RecoveredKey) =>
  new Reply({ agentId: recovered.agentId, apiKey: issuedKeyBody(recovered.record, recovered.key), revokedKeyIds: recovered.revokedKeyIds }, 201);
