/**
 * The contracts a runtime works with (docs/chain.md): on the embedded chain the collateral tokens are deployed here;
 * then the markets lane, the ledger commitment, the participation distributor and the PM sale, each deployed once
 * and recorded (a process that may not deploy, SVC_ROLE=api, only reads the records).
 */
import { parseEther, type Address } from 'viem';
import { ensureDeployments, type DeploymentRecord } from '../chain/deployer.ts';
import { ensureMarketsLane, type MarketsLane } from '../chain/markets-lane.ts';
import { DISTRIBUTOR_DEPLOYMENT, ensureDistributor } from '../chain/participation-distributor.ts';
import { ensurePmSale, PM_SALE_DEPLOYMENT } from '../chain/pm-sale.ts';
import type { Config } from '../config.ts';

/** PM minted to the operator when the embedded chain's token is deployed. */
export const PM_INITIAL_SUPPLY = parseEther('1000000000');

export type CollateralSymbol = 'USDC' | 'PM';

export interface Contracts {
  /** Every recorded deployment, by name. */
  deployments: Record<string, DeploymentRecord>;
  collateralAddresses: { symbol: CollateralSymbol; address: Address }[];
  lane: MarketsLane;
  /** The lane's own deployment records (their first blocks are where the indexer starts). */
  laneRecords: Record<string, DeploymentRecord>;
  tokenOf(symbol: CollateralSymbol): Address;
}

export async function ensureContracts(deps: Omit<Parameters<typeof ensureDeployments>[0], 'specs'>, config: Config, operator: Address, progress: (line: string) => void): Promise<Contracts> {
  let deployments: Record<string, DeploymentRecord> = {};
  let collateralAddresses: Contracts['collateralAddresses'];
  if (config.chain.mode === 'embedded') {
    deployments = await ensureDeployments({
      ...deps,
      specs: [
        { name: 'ParticipationToken', contract: 'ParticipationToken', args: [operator, PM_INITIAL_SUPPLY] },
        { name: 'TestUSDC', contract: 'TestUSDC', args: [operator] },
      ],
    });
    collateralAddresses = [
      { symbol: 'USDC', address: deployments.TestUSDC!.address },
      { symbol: 'PM', address: deployments.ParticipationToken!.address },
    ];
  } else {
    collateralAddresses = [
      { symbol: 'USDC', address: config.chain.usdcTokenAddress! },
      { symbol: 'PM', address: config.chain.pmTokenAddress! },
    ];
  }
  const tokenOf = (symbol: CollateralSymbol) => collateralAddresses.find((c) => c.symbol === symbol)!.address;
  const { lane, records: laneRecords } = await ensureMarketsLane({
    ...deps,
    operator,
    protocolFeeRecipient: operator,
    tokens: { USDC: tokenOf('USDC'), PM: tokenOf('PM') },
    localChain: config.chain.mode === 'embedded',
    windows: config.resolution,
    progress,
  });
  for (const record of Object.values(laneRecords)) deployments[record.name] = record;
  // The play-money ledger commitment, operated by our operator key (docs/ledger.md).
  Object.assign(deployments, await ensureDeployments({ ...deps, specs: [{ name: 'LedgerCommitment', contract: 'LedgerCommitment', args: [operator] }] }));
  // The participation release's distributor (docs/participation.md), funded once with its pool.
  const distributor = await ensureDistributor(deps, { operator, pm: tokenOf('PM'), pool: config.participation.poolWei, mode: config.participation.mode, progress });
  if (distributor) deployments[DISTRIBUTOR_DEPLOYMENT] = distributor;
  // The PM sale (docs/economy.md): sells PM for USDC by permit and delivers card purchases, from its own inventory.
  deployments[PM_SALE_DEPLOYMENT] = await ensurePmSale(deps, {
    operator,
    treasury: operator,
    tokens: { PM: tokenOf('PM'), USDC: tokenOf('USDC') },
    priceUsdcPerPm: config.economy.priceUsdcPerPm,
    minPayment: config.economy.relayMinPayment,
    inventory: config.economy.saleInventory,
    progress,
  });
  return { deployments, collateralAddresses, lane, laneRecords, tokenOf };
}
