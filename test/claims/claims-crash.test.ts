// A claim across a crash between submit and receipt (the relayer fails right after broadcasting the redemption, or
// right before): the plan and its effect are kept first, so the request answers from that plan — the same
// transaction — and the holder is paid exactly once; a retry of the key replays it.
import { encodeFunctionData, erc20Abi, parseUnits, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import type { RelayedTx } from '../../src/chain/relayer.ts';
import { registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas, post, sendApprovals, sendTx } from '../support/markets.ts';

let armed: 'before' | 'after' | null = null;
const crashAt = (point: 'before' | 'after') => (tx: RelayedTx) => {
  if (armed === point && tx.operationId.startsWith('claims:')) {
    armed = null;
    throw new Error(`simulated crash ${point} broadcast`);
  }
};
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000' },
    relayerFaults: { beforeBroadcast: crashAt('before'), afterBroadcast: crashAt('after') },
  });
});
afterAll(async () => server?.close());

const A = '/api/agent/v1';

describe('claims across a crash', () => {
  it('pays once and answers the same transaction, whether the relayer failed before or after broadcasting', async () => {
    const creator = await registerWallet(server, undefined, 'crash-creator');
    const holder = await registerWallet(server, undefined, 'crash-holder');
    for (const a of [creator, holder]) {
      await gas(server, a.account.address);
      await fund(server, a.account.address);
    }
    const markets = [(await createMarket(server, creator.key, creator.account)).market, (await createMarket(server, creator.key, creator.account, { question: 'Will the second crash market pay?' })).market];
    await server.runtime.services.indexer.syncNow();
    for (const m of markets) {
      const body = { market: m.address, outcome: 0, side: 'buy', shares: parseUnits('5', 6).toString(), deadlineSeconds: 86_400 };
      let prepared = await post(server, holder.key, '/trade/prepare', body);
      if (prepared.body.code === 'APPROVAL_REQUIRED') {
        await sendApprovals(server, holder.account, prepared.body.approvals);
        prepared = await post(server, holder.key, '/trade/prepare', body);
      }
      await sendTx(server, holder.account, prepared.body.transaction);
      await sendTx(server, creator.account, { to: server.runtime.services.chain.lane().resolver, data: encodeFunctionData({ abi: loadArtifact('MarketResolver').abi, functionName: 'propose', args: [m.address as Address, 1] }) as Hex });
    }
    await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [7_201]);
    await rpc(server.runtime.rpcUrl, 'evm_mine');
    await server.runtime.services.indexer.syncNow();
    await server.runtime.services.resolutionKeeper.runOnce();
    await server.runtime.services.indexer.syncNow();

    const token = markets[0]!.collateral.token as Address;
    const usdc = () => server.runtime.services.chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder.account.address] });
    for (const [i, point] of (['after', 'before'] as const).entries()) {
      armed = point;
      const before = await usdc();
      const key = `crash-${point}`;
      const body = { markets: [{ chainId: 8453, marketAddress: markets[i]!.address }] };
      const first = await server.call('POST', `${A}/claims/batch`, { key: holder.key, body, idempotencyKey: key });
      expect(armed, 'the fault fired').toBeNull();
      expect(first.status, first.text).toBe(200);
      expect(first.body.claims[0]).toMatchObject({ state: 'SETTLED', amount: parseUnits('5', 6).toString() });
      const retry = await server.call('POST', `${A}/claims/batch`, { key: holder.key, body, idempotencyKey: key });
      expect(retry.body.claims[0].txHash).toBe(first.body.claims[0].txHash);
      expect((await usdc()) - before).toBe(parseUnits('5', 6)); // once
    }
  });
});
