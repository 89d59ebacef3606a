/**
 * Deploys and wires the market lanes: first the MarketResolver both lanes resolve through, then the shared outcome
 * token, the LMSR market implementation, one permanent router per collateral and the binary and ternary factories,
 * then authorises the factories on the outcome token and the routers and registers each collateral with its router
 * and liquidity floor. It also deploys the order-book registry (the OrderBookMarket implementation and its factory),
 * which needs no wiring, and on the embedded chain makes the operator the resolver's council. Every step is
 * idempotent: deployments are recorded (see deployer.ts) and each wiring call first reads the chain and is sent under
 * a fixed relayer operation id, so a crash at any point resumes without a second transaction.
 */
import { encodeFunctionData, type Address, type PublicClient } from 'viem';
import { CHALLENGE_WINDOW_SECONDS, CREATION_BOND_PM, LMSR_FEES, MIN_LIQUIDITY, VOTE_WINDOW_SECONDS } from '../core/markets/fees.ts';
import { loadArtifact, type ContractName } from './artifacts.ts';
import { ensureDeployments, type DeploymentRecord } from './deployer.ts';

export type CollateralSymbol = 'USDC' | 'PM';


export interface MarketsLane {
  /** The MarketResolver every market of both lanes resolves through (docs/contracts.md "Resolution"). */
  resolver: Address;
  outcomeToken: Address;
  implementation: Address;
  routers: Record<CollateralSymbol, Address>;
  factories: { binary: Address; ternary: Address };
  /** The OrderBookMarket implementation that play-money order-book markets are clones of. */
  orderbookImplementation: Address;
  /** Registers play-money order-book markets and numbers them with the ledger's marketIds (docs/contracts.md). */
  orderbookFactory: Address;
  /** Redeems many holders' winning shares in one transaction, paying each holder (docs/money-out.md). */
  payoutRouter: Address;
}

/** Deployment names of the lane, as recorded in `deployments` and published by GET /discover/contracts. */
export const LANE_DEPLOYMENTS = {
  resolver: 'MarketResolver',
  outcomeToken: 'OutcomeToken',
  implementation: 'LmsrMarket',
  routerUSDC: 'TradeRouter.USDC',
  routerPM: 'TradeRouter.PM',
  binary: 'LmsrMarketFactory.binary',
  ternary: 'LmsrMarketFactory.ternary',
  orderbookImplementation: 'OrderBookMarket',
  orderbookFactory: 'OrderBookMarketFactory',
  payoutRouter: 'PayoutRouter',
} as const;

/** The lane's addresses from recorded deployments, or null when it is not (fully) deployed. */
export function laneFromDeployments(records: readonly DeploymentRecord[]): MarketsLane | null {
  const at = (name: string) => records.find((r) => r.name === name)?.address;
  const resolver = at(LANE_DEPLOYMENTS.resolver);
  const outcomeToken = at(LANE_DEPLOYMENTS.outcomeToken);
  const implementation = at(LANE_DEPLOYMENTS.implementation);
  const usdc = at(LANE_DEPLOYMENTS.routerUSDC);
  const pm = at(LANE_DEPLOYMENTS.routerPM);
  const binary = at(LANE_DEPLOYMENTS.binary);
  const ternary = at(LANE_DEPLOYMENTS.ternary);
  const orderbookImplementation = at(LANE_DEPLOYMENTS.orderbookImplementation);
  const orderbookFactory = at(LANE_DEPLOYMENTS.orderbookFactory);
  const payoutRouter = at(LANE_DEPLOYMENTS.payoutRouter);
  if (!resolver || !outcomeToken || !implementation || !usdc || !pm || !binary || !ternary || !orderbookImplementation || !orderbookFactory || !payoutRouter) return null;
  return { resolver, outcomeToken, implementation, routers: { USDC: usdc, PM: pm }, factories: { binary, ternary }, orderbookImplementation, orderbookFactory, payoutRouter };
}

export async function ensureMarketsLane(deps: Omit<Parameters<typeof ensureDeployments>[0], 'specs'> & {
  operator: Address;
  /** Receives protocol fees (the operator's treasury by default). */
  protocolFeeRecipient: Address;
  tokens: Record<CollateralSymbol, Address>;
  /**
   * True for the embedded anvil only: the resolver then accepts windows below its 2 h / 24 h floors (tests shorten
   * them) and the operator alone becomes its council (threshold 1) while none is set.
   */
  localChain: boolean;
  /** The resolver's windows (seconds) as configured; set on chain when they differ (shorter ones only on a local chain). */
  windows?: { challengeWindowSeconds: number; voteWindowSeconds: number };
  progress?: (line: string) => void;
}): Promise<{ lane: MarketsLane; records: Record<string, DeploymentRecord> }> {
  const { client, relayer, chainId, log, operator, tokens } = deps;
  const progress = deps.progress ?? ((line: string) => log.info(line));
  const base = { db: deps.db, client, relayer, chainId, clock: deps.clock, log, mayDeploy: deps.mayDeploy };

  // Each ensureDeployments call can need an address from the one before (constructor arguments).
  const step = async (name: string, contract: ContractName, args: readonly unknown[]) =>
    (await ensureDeployments({ ...base, specs: [{ name, contract, args }] }))[name]!;
  // The challenge bond is the creation bond's amount, in PM.
  const resolver = await step(LANE_DEPLOYMENTS.resolver, 'MarketResolver', [operator, tokens.PM, CREATION_BOND_PM, CHALLENGE_WINDOW_SECONDS, VOTE_WINDOW_SECONDS, deps.localChain]);
  const outcomeToken = await step(LANE_DEPLOYMENTS.outcomeToken, 'OutcomeToken', [operator]);
  const implementation = await step(LANE_DEPLOYMENTS.implementation, 'LmsrMarket', [outcomeToken.address, tokens.PM, resolver.address]);
  const routerUSDC = await step(LANE_DEPLOYMENTS.routerUSDC, 'TradeRouter', [tokens.USDC, outcomeToken.address, operator]);
  const routerPM = await step(LANE_DEPLOYMENTS.routerPM, 'TradeRouter', [tokens.PM, outcomeToken.address, operator]);
  const factoryArgs = [implementation.address, operator, deps.protocolFeeRecipient, LMSR_FEES.protocolFeeBps, LMSR_FEES.creatorFeeBpsMax, CREATION_BOND_PM];
  const binary = await step(LANE_DEPLOYMENTS.binary, 'LmsrMarketFactory', [2, ...factoryArgs]);
  const ternary = await step(LANE_DEPLOYMENTS.ternary, 'LmsrMarketFactory', [3, ...factoryArgs]);
  // The order-book registry: permissionless and fee-free, so it needs no wiring after deployment.
  const orderbookImplementation = await step(LANE_DEPLOYMENTS.orderbookImplementation, 'OrderBookMarket', [resolver.address]);
  const orderbookFactory = await step(LANE_DEPLOYMENTS.orderbookFactory, 'OrderBookMarketFactory', [orderbookImplementation.address, operator]);
  // Holds nothing and needs no wiring: each market pays only the holder.
  const payoutRouter = await step(LANE_DEPLOYMENTS.payoutRouter, 'PayoutRouter', []);
  const lane: MarketsLane = {
    resolver: resolver.address,
    outcomeToken: outcomeToken.address,
    implementation: implementation.address,
    routers: { USDC: routerUSDC.address, PM: routerPM.address },
    factories: { binary: binary.address, ternary: ternary.address },
    orderbookImplementation: orderbookImplementation.address,
    orderbookFactory: orderbookFactory.address,
    payoutRouter: payoutRouter.address,
  };

  let wired = 0;
  const call = async (operationId: string, contract: ContractName, to: Address, functionName: string, args: readonly unknown[]) => {
    const data = encodeFunctionData({ abi: loadArtifact(contract).abi, functionName, args: args as unknown[] });
    const id = `wire:${chainId}:${operationId}`;
    const tx = await relayer.send({ operationId: id, idempotencyKey: id, to, data });
    if (tx.state !== 'confirmed') throw new Error(`markets lane: ${operationId} ended in state ${tx.state} (tx ${tx.txHash})`);
    wired++;
  };
  const read = <T>(contract: ContractName, address: Address, functionName: string, args: readonly unknown[]) =>
    (client as PublicClient).readContract({ address, abi: loadArtifact(contract).abi, functionName, args: args as unknown[] }) as Promise<T>;

  for (const [kind, factory] of Object.entries(lane.factories)) {
    if (!(await read<boolean>('OutcomeToken', lane.outcomeToken, 'isFactory', [factory]))) {
      await call(`OutcomeToken.setFactory.${kind}`, 'OutcomeToken', lane.outcomeToken, 'setFactory', [factory, true]);
    }
    for (const symbol of ['USDC', 'PM'] as const) {
      const router = lane.routers[symbol];
      if (!(await read<boolean>('TradeRouter', router, 'isFactory', [factory]))) {
        await call(`TradeRouter.${symbol}.setFactory.${kind}`, 'TradeRouter', router, 'setFactory', [factory, true]);
      }
      const config = await read<{ router: Address; minLiquidity: bigint }>('LmsrMarketFactory', factory, 'collateralConfig', [tokens[symbol]]);
      if (config.router.toLowerCase() !== router.toLowerCase() || config.minLiquidity !== MIN_LIQUIDITY[symbol]) {
        await call(`LmsrMarketFactory.${kind}.setCollateral.${symbol}`, 'LmsrMarketFactory', factory, 'setCollateral', [tokens[symbol], router, MIN_LIQUIDITY[symbol]]);
      }
    }
  }
  // Without a council, a market whose vote fails could never resolve; a deployment that configures its own council
  // keeps it (only an empty council is filled).
  if (deps.localChain && (await read<bigint>('MarketResolver', lane.resolver, 'councilThreshold', [])) === 0n) {
    await call('MarketResolver.setCouncil.operator', 'MarketResolver', lane.resolver, 'setCouncil', [[operator], 1n]);
  }
  if (deps.windows) {
    const [challenge, vote] = await Promise.all([read<number>('MarketResolver', lane.resolver, 'challengeWindow', []), read<number>('MarketResolver', lane.resolver, 'voteWindow', [])]);
    const { challengeWindowSeconds: c, voteWindowSeconds: v } = deps.windows;
    // Named by the change, so going back to earlier windows is a new transaction, and a retry of this one is not.
    if (challenge !== c || vote !== v) await call(`MarketResolver.setWindows.${challenge}:${vote}->${c}:${v}`, 'MarketResolver', lane.resolver, 'setWindows', [c, v]);
  }
  if (wired > 0) progress(`chain: markets lane wired (${wired} configuration transaction(s))`);
  return { lane, records: { resolver, outcomeToken, implementation, routerUSDC, routerPM, binary, ternary, orderbookImplementation, orderbookFactory } };
}
