// POST /keys/:keyId/rotate: links.rotateKey of GET /me. A new key replaces the old one, which is revoked.
import { z } from 'zod';
import type { RotatedKey } from '../../../services/identity/agent-keys.ts';
import { defineCapability, Reply } from '../types.ts';
import { ApiKeyIssued, issuedKeyBody } from './keys-shared.ts';

export const rotateKey = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/keys/:keyId/rotate',
  category: 'identity',
  summary: 'Rotate an API key',
  description:
    'Issues a new key with the same tier, scopes, status and expiry as key :keyId (the calling key or another key of the same agent) and revokes :keyId at once. The new key is in the response once. When the calling key rotates itself it is revoked, so it cannot replay the call: keep the response (an agent with a bound wallet that loses it recovers with POST /keys/recover). A key that is not the caller\'s, or no longer works, is 404.',
  tier: 'read-only',
  rateClass: 'write',
  idempotent: false,
  destructive: true,
  mcp: { tool: 'svc_keys_rotate' },
  input: { params: z.strictObject({ keyId: z.uuid() }), body: z.strictObject({}).optional() },
  invalidInputCode: 'INVALID_PAYLOAD',
  output: z.object({ apiKey: ApiKeyIssued, revokedKeyId: z.uuid() }),
  outputName: 'RotatedApiKey',
  successStatus: 201,
  errors: ['NOT_FOUND'],
  redactForReplay: (body) => ({ ...body, apiKey: { ...body.apiKey, key: null } }),
  handler: async (ctx, { params }) => rotationReply(await ctx.services.agentKeys.rotate(ctx.principal, params.keyId, ctx.recordEffect ?? undefined)),
  // A retry after a crash between the rotation's commit and its stored answer (possible only when another key of the
  // agent rotated :keyId: a key that rotated itself is revoked and cannot call again): the same key, null.
  replayEffect: async (ctx, ref) => rotationReply(await ctx.services.agentKeys.recordedRotation(ref)),
});

const rotationReply = (rotated: RotatedKey) => new Reply({ apiKey: issuedKeyBody(rotated.record, rotated.key), revokedKeyId: rotated.revokedKeyId }, 201);
