/**
 * The participation release's distributor (docs/participation.md "Deployment"): ParticipationDistributor deployed
 * once per chain for the release id, owned by the operator, taking vouchers signed by the operator key, paying PM
 * from the pool it is given once at deployment (PARTICIPATION_POOL). Like the PM sale, every wiring transaction is
 * named, so a restart sends nothing twice, and an SVC_ROLE=api process only reads the record.
 */
import { encodeFunctionData, erc20Abi, keccak256, toHex, type Address, type Hex, type PublicClient } from 'viem';
import { ensureDeployments, type DeploymentRecord } from './deployer.ts';

export const DISTRIBUTOR_DEPLOYMENT = 'ParticipationDistributor';
/** The release profile of PM on a chain: the same id GET /discover/token-release names. */
export const participationProfileId = (chainId: number): string => `pm-${chainId}`;

/** The release id of this chain's participation release: keccak256 of its profile, lowercase. */
export const participationReleaseId = (chainId: number): Hex => keccak256(toHex(`svc-participation-release:${participationProfileId(chainId)}:1`));

export async function ensureDistributor(
  deps: Parameters<typeof ensureDeployments>[0] extends infer D ? Omit<D, 'specs'> : never,
  d: { operator: Address; pm: Address; pool: bigint; mode: 'on' | 'off' | 'retired'; progress: (line: string) => void },
): Promise<DeploymentRecord | null> {
  // A release switched off from the start deploys nothing (the release reads PARTICIPATION_RELEASE_NOT_DEPLOYED); one
  // switched off later keeps its recorded distributor (inactive).
  if (d.mode === 'off') {
    const recorded = await deps.db.selectFrom('deployments').select('name').where('chain_id', '=', deps.chainId).where('name', '=', DISTRIBUTOR_DEPLOYMENT).executeTakeFirst();
    if (!recorded) return null;
  }
  const args = [d.operator, d.pm, participationReleaseId(deps.chainId), d.operator];
  const record = (await ensureDeployments({ ...deps, specs: [{ name: DISTRIBUTOR_DEPLOYMENT, contract: 'ParticipationDistributor', args }], mayDeploy: d.mode === 'off' ? false : deps.mayDeploy }))[DISTRIBUTOR_DEPLOYMENT]!;
  if (deps.mayDeploy === false || d.mode === 'off' || d.pool === 0n) return record;
  const id = `wire:${deps.chainId}:ParticipationDistributor.pool.${record.address.toLowerCase()}`;
  if (await deps.relayer.get(id)) return record;
  const balance = await (deps.client as PublicClient).readContract({ address: d.pm, abi: erc20Abi, functionName: 'balanceOf', args: [record.address] });
  if (balance > 0n) return record;
  const tx = await deps.relayer.send({ operationId: id, idempotencyKey: id, to: d.pm, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [record.address, d.pool] }) });
  if (tx.state !== 'confirmed') throw new Error(`participation distributor: funding ended in state ${tx.state} (tx ${tx.txHash})`);
  d.progress(`chain: participation distributor funded with ${d.pool / 10n ** 18n} PM`);
  return record;
}
