/**
 * The release as the chain has it now (docs/participation.md "Deployment"): the profile, the distributor's state and
 * reason code, its inventory and epoch, and the units left for new credits.
 */
import { erc20Abi, type Address } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import { participationProfileId, participationReleaseId } from '../../chain/participation-distributor.ts';
import { deploymentVerdict, type DeploymentVerdict } from '../../core/participation/gates.ts';
import type { ParticipationDeps } from './deps.ts';
import { isQuarantined } from './settings.ts';

export interface Profile {
  profileId: string;
  stage: 'test' | 'production';
  name: string;
  symbol: string;
  decimals: number;
  releaseId: string | null;
}

export interface Release {
  profile: Profile;
  verdict: DeploymentVerdict;
  distributor: Address | null;
  inventoryWei: bigint;
  epoch: bigint;
  /** Units of the pool not yet credited to anyone. */
  communityRemainingWei: bigint;
  newUnitsExhausted: boolean;
}

export function profileOf(deps: ParticipationDeps): Profile {
  return {
    profileId: participationProfileId(deps.chainId),
    stage: deps.stage,
    name: 'svc Participation',
    symbol: 'PM',
    decimals: 18,
    releaseId: deps.distributor ? participationReleaseId(deps.chainId) : null,
  };
}

export async function readRelease(deps: ParticipationDeps): Promise<Release> {
  const profile = profileOf(deps);
  const credited = await totalCredited(deps);
  const communityRemainingWei = credited >= deps.settings.poolWei ? 0n : deps.settings.poolWei - credited;
  const base = { profile, communityRemainingWei, newUnitsExhausted: communityRemainingWei < deps.settings.dailyCreditWei };
  const d = deps.distributor;
  const facts = { mode: deps.settings.mode, quarantined: await isQuarantined(deps), lowWaterWei: deps.settings.lowWaterWei, accountingValid: credited <= deps.settings.poolWei };
  if (!d) return { ...base, verdict: deploymentVerdict({ ...facts, deployed: false, routeWired: false, chainUp: true, paused: false, inventoryWei: 0n }), distributor: null, inventoryWei: 0n, epoch: 0n };
  if (!deps.chainLive()) {
    return { ...base, verdict: deploymentVerdict({ ...facts, deployed: true, routeWired: true, chainUp: false, paused: false, inventoryWei: 0n }), distributor: d.address, inventoryWei: 0n, epoch: 0n };
  }
  const abi = loadArtifact('ParticipationDistributor').abi;
  const read = <T>(functionName: string) => deps.client.readContract({ address: d.address, abi, functionName } as never) as Promise<T>;
  const [signer, token, paused, epoch, inventoryWei] = await deps.guard(() =>
    Promise.all([read<Address>('signer'), read<Address>('token'), read<boolean>('paused'), read<bigint>('epoch'), deps.client.readContract({ address: deps.pm, abi: erc20Abi, functionName: 'balanceOf', args: [d.address] })]),
  );
  const routeWired = signer.toLowerCase() === deps.signer.address.toLowerCase() && token.toLowerCase() === deps.pm.toLowerCase();
  return { ...base, verdict: deploymentVerdict({ ...facts, deployed: true, routeWired, chainUp: true, paused, inventoryWei }), distributor: d.address, inventoryWei, epoch };
}

async function totalCredited(deps: ParticipationDeps): Promise<bigint> {
  const row = await deps.db.selectFrom('participation_credits').select((eb) => eb.fn.sum<string | null>('amount').as('total')).executeTakeFirst();
  return BigInt(row?.total ?? 0);
}
