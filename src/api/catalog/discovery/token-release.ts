/**
 * GET /discover/token-release: the participation token (PM) as released on this chain. Name, symbol,
 * decimals and supply are read from the token itself; origin is the service's deployment record of it.
 * distributors: the participation release's distributor (docs/participation.md), with its epoch read from the chain.
 * Bridged representations are not part of this release: that list is empty.
 */
import { erc20Abi } from 'viem';
import { z } from 'zod';
import type { DeploymentRecord } from '../../../chain/deployer.ts';
import { ChainId, DeploymentRecordSchema, EvmAddress, WeiString } from '../../../wire/schemas.ts';
import { loadArtifact } from '../../../chain/artifacts.ts';
import { defineCapability, type HandlerContext } from '../types.ts';

/** Deployment name of the participation token (runtime.ts). */
export const PM_DEPLOYMENT = 'ParticipationToken';
export const PM_LOGO_PATH = '/assets/pm.svg';
const TEST_DISCLAIMER = 'Test release on a development chain: this PM has no value and its supply can be reset with the chain.';

const Representation = DeploymentRecordSchema.extend({
  originChainId: ChainId,
  originTokenAddress: EvmAddress,
  bridgeAdapterAddress: EvmAddress.nullable(),
});
const Distributor = DeploymentRecordSchema.extend({
  releaseId: z.string().regex(/^0x[0-9a-f]{64}$/),
  distributorEpoch: z.number().int().positive(),
  tokenAddress: EvmAddress,
});

export const TokenReleaseSchema = z.object({
  profileId: z.string().min(1).max(128),
  stage: z.enum(['test', 'production']),
  deployed: z.boolean(),
  token: z.object({
    name: z.string(),
    symbol: z.string(),
    decimals: z.number().int().min(0).max(30),
    totalSupplyWei: WeiString,
    logoPath: z.string(),
    disclaimer: z.string().nullable(),
  }),
  origin: DeploymentRecordSchema.nullable(),
  representations: z.array(Representation),
  distributors: z.array(Distributor),
});

/** The spec's deployment record: our record without its deployment name. */
const deploymentRecord = ({ name: _name, ...record }: DeploymentRecord) => record;

export const discoverTokenRelease = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/token-release',
  category: 'discovery',
  summary: 'Participation token release',
  description:
    'The participation token (PM) release on this chain: profileId, stage (test unless SVC_ENVIRONMENT is live), whether this service deployed it, the token\'s name, symbol, decimals and total supply read from the chain, and its origin deployment record (null when PM was deployed elsewhere). distributors lists the participation release\'s distributor (deployment record, releaseId, distributorEpoch read from the chain, tokenAddress); representations (bridged copies) is empty.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_token_release' },
  output: TokenReleaseSchema,
  outputName: 'TokenRelease',
  errors: ['SERVICE_UNAVAILABLE'],
  handler: async (ctx) => {
    const chain = ctx.services.chain;
    const pm = chain.collateral().find((c) => c.symbol === 'PM');
    if (!pm) throw new Error('token release: no PM collateral configured');
    const read = <F extends 'name' | 'symbol' | 'decimals' | 'totalSupply'>(functionName: F) =>
      chain.client.readContract({ address: pm.token, abi: erc20Abi, functionName });
    const stage = ctx.documents.site.environment === 'live' ? ('production' as const) : ('test' as const);
    const [name, symbol, decimals, totalSupply, deployments] = await chain.guard(() =>
      Promise.all([read('name'), read('symbol'), read('decimals'), read('totalSupply'), chain.deployments()]),
    );
    const record = deployments.find((d) => d.name === PM_DEPLOYMENT && d.address.toLowerCase() === pm.token.toLowerCase());
    const origin = record ? deploymentRecord(record) : null;
    return {
      profileId: `pm-${chain.chainId}`,
      stage,
      deployed: origin !== null,
      token: { name, symbol, decimals, totalSupplyWei: totalSupply.toString(), logoPath: PM_LOGO_PATH, disclaimer: stage === 'test' ? TEST_DISCLAIMER : null },
      origin,
      representations: [],
      distributors: await distributorsOf(ctx, pm.token),
    };
  },
});

/** The participation distributor, when this chain has one. */
async function distributorsOf(ctx: HandlerContext, token: string): Promise<z.output<typeof Distributor>[]> {
  const record = ctx.services.participation.distributor();
  const releaseId = ctx.services.participation.profile().releaseId;
  if (!record || !releaseId) return [];
  const epoch = (await ctx.services.chain.guard(() =>
    ctx.services.chain.client.readContract({ address: record.address, abi: loadArtifact('ParticipationDistributor').abi, functionName: 'epoch' } as never),
  )) as bigint;
  const { address, fromBlock, deploymentTxHash, deploymentBlockHash, runtimeCodeHash } = record;
  return [{ chainId: ctx.services.chain.chainId, address, fromBlock, deploymentTxHash, deploymentBlockHash, runtimeCodeHash, releaseId, distributorEpoch: Number(epoch), tokenAddress: token }];
}
