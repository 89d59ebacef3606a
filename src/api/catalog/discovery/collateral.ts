import { z } from 'zod';
import { ChainId, ChainIdQuery, EvmAddress } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

export const CollateralTokenSchema = z.object({
  token: EvmAddress,
  symbol: z.enum(['USDC', 'PM']),
  decimals: z.number().int().min(0).max(30),
  chainId: ChainId,
  enabled: z.boolean(),
});

export const discoverCollateral = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/collateral',
  category: 'discovery',
  summary: 'Collateral tokens',
  description: 'Collateral tokens (USDC and PM) with their addresses and decimals. chainId is optional only while exactly one chain is active.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_collateral' },
  input: { query: z.strictObject({ chainId: ChainIdQuery.optional() }) },
  output: z.object({ tokens: z.array(CollateralTokenSchema) }),
  errors: ['INVALID_QUERY', 'UNSUPPORTED_CHAIN'],
  handler: async (ctx, { query }) => {
    const chain = ctx.services.chain;
    chain.requireServed(query.chainId, 'UNSUPPORTED_CHAIN');
    return { tokens: chain.collateral().map(({ token, symbol, decimals, chainId, enabled }) => ({ token, symbol, decimals, chainId, enabled })) };
  },
});
