import { z } from 'zod';
import { ChainId, WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

export const ChainDetail = z.object({
  chainId: ChainId,
  name: z.string(),
  type: z.literal('evm'),
  blockExplorerUrl: z.url(),
  enabled: z.boolean(),
  rpc: z.object({
    publicUrl: z.url(),
    readAfterWriteWindowMs: z.number().int().min(0).max(30_000),
    recommendedReadStrategy: z.literal('pin-to-receipt-block'),
    recommendedPriorityFeeWei: WeiString,
  }),
});

export const discoverChains = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/chains',
  category: 'discovery',
  summary: 'Chains',
  description: 'The chains this service trades on, with the public RPC and read-after-write guidance. recommendedPriorityFeeWei is read from the node.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_chains' },
  output: z.object({ chains: z.array(ChainDetail) }),
  errors: ['SERVICE_UNAVAILABLE'],
  handler: async (ctx) => {
    const chain = ctx.services.chain;
    const s = chain.settings();
    const fee = await chain.recommendedPriorityFeeWei();
    return {
      chains: [
        {
          chainId: s.id,
          name: s.name,
          type: 'evm' as const,
          blockExplorerUrl: s.blockExplorerUrl,
          enabled: true,
          rpc: {
            publicUrl: s.publicRpcUrl,
            readAfterWriteWindowMs: s.readAfterWriteWindowMs,
            recommendedReadStrategy: 'pin-to-receipt-block' as const,
            recommendedPriorityFeeWei: fee.toString(),
          },
        },
      ],
    };
  },
});
