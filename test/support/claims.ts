// What the money-out suites share: a funded wallet agent, a buy through the trade loop, and an undisputed resolution
// through the resolver and the keeper.
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { expect } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { registerWallet } from './agents.ts';
import { rpc } from './anvil-rpc.ts';
import type { TestServer } from './harness.ts';
import { fund, gas, post, sendApprovals, sendTx } from './markets.ts';

export type Agent = Awaited<ReturnType<typeof registerWallet>>;

/** A wallet agent with gas, USDC and PM. */
export async function funded(server: TestServer, name: string): Promise<Agent> {
  const agent = await registerWallet(server, undefined, name);
  await gas(server, agent.account.address);
  await fund(server, agent.account.address);
  return agent;
}

/** Buys through /trade/prepare (approving first when asked), with a day's deadline: a test may run the chain's clock ahead. */
export const buyShares = (server: TestServer, agent: Agent, market: string, outcome: number, shares: bigint): Promise<void> =>
  tradeShares(server, agent, 'buy', market, outcome, shares);

/** Buys or sells through /trade/prepare, sending the approval it asks for first, with a day's deadline. */
export async function tradeShares(server: TestServer, agent: Agent, side: 'buy' | 'sell', market: string, outcome: number, shares: bigint): Promise<void> {
  const body = { market, outcome, side, shares: shares.toString(), deadlineSeconds: 86_400 };
  let prepared = await post(server, agent.key, '/trade/prepare', body);
  if (prepared.body.code === 'APPROVAL_REQUIRED') {
    await sendApprovals(server, agent.account, prepared.body.approvals);
    prepared = await post(server, agent.key, '/trade/prepare', body);
  }
  expect(prepared.status, prepared.text).toBe(200);
  await sendTx(server, agent.account, prepared.body.transaction);
}

/** The creator's transaction of a resolver call. */
export function resolverTx(server: TestServer, functionName: string, args: readonly unknown[]): { to: Address; data: Hex } {
  return { to: server.runtime.services.chain.lane().resolver, data: encodeFunctionData({ abi: loadArtifact('MarketResolver').abi, functionName, args } as never) as Hex };
}

/** Proposes `outcome` as the creator, lets the 2-hour window pass on chain and the keeper finalize it. */
export async function resolveUndisputed(server: TestServer, creator: Agent, market: string, outcome: number): Promise<void> {
  await sendTx(server, creator.account, resolverTx(server, 'propose', [market as Address, outcome]));
  await server.runtime.services.indexer.syncNow();
  await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [7_201]);
  await rpc(server.runtime.rpcUrl, 'evm_mine');
  await server.runtime.services.resolutionKeeper.runOnce();
  await server.runtime.services.indexer.syncNow();
}
