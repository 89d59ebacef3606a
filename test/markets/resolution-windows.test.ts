// Shorter resolution windows for demos and end-to-end runs on the embedded test environment: set on the resolver at
// start, published by /discover/rules, and used by the chain (a proposal final a minute later).
import { encodeFunctionData, type Hex } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas, sendTx } from '../support/markets.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000', RESOLUTION_CHALLENGE_WINDOW_SECONDS: '60', RESOLUTION_VOTE_WINDOW_SECONDS: '120' },
  });
});
afterAll(async () => server?.close());

it('the configured windows are the resolver\'s, published, and a proposal is final after a minute', async () => {
  const abi = loadArtifact('MarketResolver').abi;
  const { chain, indexer, resolutionKeeper } = server.runtime.services;
  const resolver = chain.lane().resolver;
  const onChain = (functionName: string) => chain.client.readContract({ address: resolver, abi, functionName } as never);
  expect([await onChain('challengeWindow'), await onChain('voteWindow')]).toEqual([60, 120]);
  const key = await server.key('read-only');
  const rules = await server.call('GET', '/api/agent/v1/discover/rules', { key });
  expect(rules.body.resolution).toMatchObject({ challengeWindowSeconds: 60, voteWindowSeconds: 120 });

  const creator = await registerWallet(server);
  await gas(server, creator.account.address);
  await fund(server, creator.account.address);
  const { market } = await createMarket(server, creator.key, creator.account);
  await indexer.syncNow();
  await sendTx(server, creator.account, { to: resolver, data: encodeFunctionData({ abi, functionName: 'propose', args: [market.address, 1] } as never) as Hex });
  await indexer.syncNow();
  expect(await resolutionKeeper.runOnce()).toEqual([]);
  await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [61]);
  await rpc(server.runtime.rpcUrl, 'evm_mine');
  expect(await resolutionKeeper.runOnce()).toEqual([`finalize ${market.address.toLowerCase()}`]);
});
