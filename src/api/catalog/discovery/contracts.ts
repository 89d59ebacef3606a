import { z } from 'zod';
import { problem } from '../../../core/error-codes.ts';
import { ChainId, ChainIdQuery, DeploymentRecordSchema, EvmAddress, Hash32, WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { routerInterface, tradingApprovals } from '../../../services/markets/approvals.ts';
import { matchCollateral } from '../../../services/chain/chain-service.ts';

/** The spec's approval recipe plus its ready transaction; POST /trade/prepare's 409 APPROVAL_REQUIRED carries the same objects. */
export const ApprovalRecipeSchema = z.object({
  kind: z.enum(['erc20_approve', 'erc1155_set_approval_for_all']),
  reason: z.enum(['buy_collateral', 'sell_outcome_token']),
  chainId: ChainId,
  token: EvmAddress,
  spender: EvmAddress,
  amount: WeiString.optional(),
  transaction: z
    .object({ chainId: ChainId, to: EvmAddress, data: z.string().regex(/^0x[0-9a-f]+$/), value: z.literal('0') })
    .describe('the approval ready to sign and send from the wallet that grants it (to = token); the same for every wallet'),
});

const Selector = z.object({ signature: z.string(), selector: z.string().regex(/^0x[0-9a-f]{8}$/) });

export const ContractsPerChain = z.object({
  chainId: ChainId,
  name: z.string(),
  stable: z.literal(true),
  collaterals: z.array(
    z.object({
      symbol: z.enum(['USDC', 'PM']),
      token: EvmAddress,
      router: EvmAddress.nullable(),
      decimals: z.number().int().min(0).max(30),
      role: z.enum(['protocol', 'stable']),
      capabilities: z.object({ trading: z.boolean(), creation: z.boolean() }),
    }),
  ),
  outcomeToken: EvmAddress.nullable(),
  factories: z.object({ binary: EvmAddress.nullable(), ternary: EvmAddress.nullable(), orderbook: EvmAddress.nullable() }),
  routerInterface: z
    .object({ abiVersion: z.string(), runtimeCodeHash: Hash32, functions: z.object({ executeTradeIntent: Selector, executeBasketIntent: Selector }) })
    .nullable(),
  approvals: z.array(ApprovalRecipeSchema),
  deployments: z.array(DeploymentRecordSchema.extend({ name: z.string() })),
});

export const discoverContracts = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/contracts',
  category: 'discovery',
  summary: 'Contracts per chain',
  description:
    'Deployed protocol contracts per chain: collaterals with their routers and capabilities, the outcome token, factories, the router interface and the approval recipes, plus every deployment record. factories.orderbook is the OrderBookMarketFactory that registers play-money ORDERBOOK markets and numbers them with the marketIds of the ledger (they trade in the off-chain ledger, not on chain); null when the order-book lane is not deployed. routerInterface.runtimeCodeHash is the router artifact code hash with its immutables (the collateral) zeroed, the same for every router.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_contracts' },
  input: {
    query: z.strictObject({
      chainId: ChainIdQuery.optional(),
      collateral: z.string().min(1).max(64).optional().describe('collateral symbol (USDC, PM) or token address; narrows collaterals and approvals'),
    }),
  },
  output: z.object({ chains: z.array(ContractsPerChain) }),
  errors: ['INVALID_QUERY', 'UNSUPPORTED_CHAIN'],
  handler: async (ctx, { query }) => {
    const chain = ctx.services.chain;
    chain.requireServed(query.chainId, 'UNSUPPORTED_CHAIN');
    const collaterals = query.collateral === undefined ? chain.collateral() : matchCollateral(chain.collateral(), query.collateral);
    if (collaterals.length === 0) {
      throw problem('INVALID_QUERY', `collateral '${query.collateral}' is not a reviewed collateral symbol or token address`, {
        errors: [{ path: 'query.collateral', message: 'unknown collateral' }],
      });
    }
    const deployments = await chain.deployments();
    const lane = chain.lane();
    return {
      chains: [
        {
          chainId: chain.chainId,
          name: chain.settings().name,
          stable: true as const,
          collaterals: collaterals.map((c) => ({
            symbol: c.symbol,
            token: c.token,
            router: lane.routers[c.symbol],
            decimals: c.decimals,
            role: c.role,
            capabilities: { trading: true, creation: true },
          })),
          outcomeToken: lane.outcomeToken,
          factories: { binary: lane.factories.binary, ternary: lane.factories.ternary, orderbook: lane.orderbookFactory },
          routerInterface: routerInterface(),
          approvals: tradingApprovals(chain.chainId, lane, collaterals),
          deployments: deployments.map(({ name, ...record }) => ({ name, ...record })),
        },
      ],
    };
  },
});
