// Scalars and shared objects of both specs, as zod schemas (validation, types, OpenAPI, MCP).
import { z } from 'zod';

export const EvmAddress = z.string().regex(/^0x[a-fA-F0-9]{40}$/, 'must be an EVM address (0x + 40 hex digits)');
export const TxHash = z.string().regex(/^0x[a-fA-F0-9]{64}$/, 'must be a transaction hash (0x + 64 hex digits)');
export const Hash32 = z.string().regex(/^0x[a-fA-F0-9]{64}$/);
export const WeiString = z.string().regex(/^[0-9]+$/, 'must be a non-negative base-10 integer string');
export const ChainId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** A chainId arriving in a query string. */
export const ChainIdQuery = z.coerce.number({ error: 'must be an integer' }).int('must be an integer').positive().max(Number.MAX_SAFE_INTEGER);
export const IsoTimestamp = z.iso.datetime({ offset: true });
export const AgentTierSchema = z.enum(['read-only', 'propose', 'execute']);

export const AgentCapabilitySchema = z.object({
  name: z.string(),
  category: z.string(),
  requiredTier: AgentTierSchema,
  description: z.string(),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']),
  path: z.string(),
  idempotent: z.boolean(),
  surface: z.literal('agent'),
});

export const DeploymentRecordSchema = z.object({
  chainId: ChainId,
  address: EvmAddress,
  fromBlock: z.number().int().nonnegative(),
  deploymentTxHash: Hash32,
  deploymentBlockHash: Hash32,
  runtimeCodeHash: Hash32,
});

export const ProblemDetailsSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  requestId: z.string().optional(),
});
