// The issued-key object every key-issuing capability returns (register, rotate, recover).
import { z } from 'zod';
import type { KeyRecord } from '../../../services/keys/keys.ts';
import { AgentTierSchema, IsoTimestamp } from '../../../wire/schemas.ts';

export const ApiKeyIssued = z.object({
  id: z.uuid(),
  /** The raw key, shown once; null on an Idempotency-Key replay. */
  key: z.string().nullable(),
  prefix: z.string(),
  status: z.enum(['dormant', 'active']),
  tier: AgentTierSchema,
  scopes: z.array(z.string()),
  expiresAt: IsoTimestamp.nullable(),
});

/**
 * `key` null when the answer is rebuilt for an Idempotency-Key retry (the key is shown once). The key is described as
 * it stands; one revoked or expired since says active, as it was issued (only an unverified email agent's keys are
 * issued dormant, and such an agent has no working key to rotate them with nor a wallet to recover with).
 */
export const issuedKeyBody = (record: KeyRecord, key: string | null): z.output<typeof ApiKeyIssued> => ({
  id: record.id,
  key,
  prefix: record.prefix,
  status: record.status === 'dormant' ? 'dormant' : 'active',
  tier: record.tier,
  scopes: record.scopes,
  expiresAt: record.expiresAt?.toISOString() ?? null,
});

const V1 = '/api/agent/v1';
export const AGENT_LINKS = {
  me: `${V1}/me`,
  recoverKey: `${V1}/keys/recover`,
  authDiscovery: `${V1}/auth-discovery`,
  bindEmail: `${V1}/agents/me/bind-email`,
  bindWallet: `${V1}/agents/me/bind-wallet`,
};
