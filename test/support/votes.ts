// A market in an open human vote, as the vote suites need one: its creator proposed 1, a challenger challenged with 2,
// and the keeper opened round 1.
import { encodeFunctionData, erc20Abi, maxUint256, parseUnits, type Address, type Hex } from 'viem';
import { expect } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { newAccount, registerWallet } from './agents.ts';
import type { TestServer } from './harness.ts';
import { createMarket, fund, gas, sendTx, tokens } from './markets.ts';

const resolverCall = (functionName: string, args: readonly unknown[]) => encodeFunctionData({ abi: loadArtifact('MarketResolver').abi, functionName, args } as never) as Hex;

/** Creates, proposes, challenges and opens round 1; answers the market (lowercase) and its vote sessionId. */
export async function votingMarket(server: TestServer, name: string, overrides: Record<string, unknown> = {}): Promise<{ market: Address; sessionId: string }> {
  const sync = () => server.runtime.services.indexer.syncNow();
  const resolver = server.runtime.services.chain.lane().resolver;
  const creator = await registerWallet(server, undefined, name);
  await gas(server, creator.account.address);
  await fund(server, creator.account.address);
  const market = ((await createMarket(server, creator.key, creator.account, overrides)).market.address as string).toLowerCase() as Address;
  await sync();
  const challenger = newAccount();
  await gas(server, challenger.address);
  await fund(server, challenger.address, { usdc: 0n, pm: parseUnits('100000', 18) });
  await sendTx(server, challenger, { to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [resolver, maxUint256] }) });
  await sendTx(server, creator.account, { to: resolver, data: resolverCall('propose', [market, 1]) });
  await sendTx(server, challenger, { to: resolver, data: resolverCall('challenge', [market, 2]) });
  await sync();
  expect(await server.runtime.services.resolutionKeeper.runOnce()).toEqual([`openVote ${market}`]);
  await sync();
  return { market, sessionId: `${server.config.chain.id}:${market}:1` };
}
