// GET /discover/markets/:address/depth against a real market: created through the binary factory on the
// runtime's anvil, projected by the indexer, quoted by eth_call. The ladder must equal the contract's quoteBuy.
import { createWalletClient, encodeFunctionData, http, keccak256, maxUint256, parseEventLogs, stringToHex, type Abi, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilDevAccounts } from '../../src/chain/anvil.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { CREATION_BOND_PM, RESOLUTION_WINDOW_SECONDS } from '../../src/core/markets/fees.ts';
import { wadToDecimal } from '../../src/core/markets/price.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';

let server: TestServer;
let key: string;
let market: Address;
const creator = privateKeyToAccount(anvilDevAccounts()[3]!);
const LIQUIDITY = 1_000n * 10n ** 6n;
const V1 = '/api/agent/v1';

async function relay(operationId: string, to: Address, abi: Abi, functionName: string, args: readonly unknown[]) {
  const data = encodeFunctionData({ abi, functionName, args: args as unknown[] });
  const tx = await server.runtime.relayer.send({ operationId, idempotencyKey: operationId, to, data });
  expect(tx.state).toBe('confirmed');
}

beforeAll(async () => {
  server = await startTestServer();
  key = await server.key('read-only');
  const { deployments, rpcUrl } = server.runtime;
  const usdc = deployments.TestUSDC!.address;
  const pm = deployments.ParticipationToken!.address;
  const factory = deployments['LmsrMarketFactory.binary']!.address;
  const client = server.runtime.services.chain.client;

  // The operator owns TestUSDC and holds the PM supply: it funds the creator.
  await relay('test:fund:usdc', usdc, loadArtifact('TestUSDC').abi, 'mint', [creator.address, 10_000n * 10n ** 6n]);
  await relay('test:fund:pm', pm, loadArtifact('ParticipationToken').abi, 'transfer', [creator.address, 1_000n * 10n ** 18n]);

  const chain = { ...foundry, id: server.config.chain.id };
  const wallet = createWalletClient({ chain, transport: http(rpcUrl), account: creator, pollingInterval: 20 });
  const send = async (to: Address, abi: Abi, functionName: string, args: readonly unknown[]) => {
    const hash = await wallet.writeContract({ address: to, abi, functionName, args: args as unknown[] });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  await send(usdc, loadArtifact('TestUSDC').abi, 'approve', [factory, maxUint256]);
  await send(pm, loadArtifact('ParticipationToken').abi, 'approve', [factory, maxUint256]);
  const head = await client.getBlock();
  const receipt = await send(factory, loadArtifact('LmsrMarketFactory').abi, 'createMarket', [
    usdc,
    keccak256(stringToHex('Will the depth ladder match quoteBuy?')),
    head.timestamp + 30n * 86_400n,
    RESOLUTION_WINDOW_SECONDS,
    LIQUIDITY,
    100,
    100,
    CREATION_BOND_PM,
  ]);
  const [created] = parseEventLogs({ abi: loadArtifact('LmsrMarketFactory').abi, logs: receipt.logs, eventName: 'MarketCreated' });
  market = (created!.args as { market: Address }).market;
  await server.runtime.services.indexer.syncNow();
});
afterAll(async () => {
  await server?.close();
});

type Level = { fractionBps: number; shares: string; quote: { amount: string; protocolFee: string; creatorFee: string; averagePrice: string; priceAfter: string } | null };

async function quoteBuy(outcome: number, shares: bigint, blockNumber: bigint) {
  return (await server.runtime.services.chain.client.readContract({
    address: market,
    abi: loadArtifact('LmsrMarket').abi,
    functionName: 'quoteBuy',
    args: [outcome, shares],
    blockNumber,
  })) as readonly [bigint, bigint, bigint, readonly bigint[]];
}

describe('GET /discover/markets/:address/depth', () => {
  it('the indexer projected the factory market (unregistered: detail only)', async () => {
    const res = await server.call('GET', `${V1}/discover/markets/${market}`, { key });
    expect(res.status).toBe(200);
    expect(res.body.market).toMatchObject({ address: market, liquidity: LIQUIDITY.toString(), isTradeable: true, outcomes: [{ price: '0.5' }, { price: '0.5' }] });
  });

  it('ladders 1, 5, 10, 25 and 50 % of b per outcome with the exact quoteBuy', async () => {
    const res = await server.call('GET', `${V1}/discover/markets/${market}/depth`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'lmsr', market, chainId: server.config.chain.id, tradeable: true, basis: 'live', liquidity: LIQUIDITY.toString() });
    const blockNumber = BigInt(res.body.blockNumber);
    expect(res.body.outcomes).toHaveLength(2);
    for (const [i, outcome] of (res.body.outcomes as { index: number; price: string; levels: Level[] }[]).entries()) {
      expect(outcome).toMatchObject({ index: i, price: '0.5' });
      expect(outcome.levels.map((l) => l.fractionBps)).toEqual([100, 500, 1000, 2500, 5000]);
      let previous = 0n;
      for (const level of outcome.levels) {
        const shares = (LIQUIDITY * BigInt(level.fractionBps)) / 10_000n;
        expect(level.shares).toBe(shares.toString());
        const [amount, protocolFee, creatorFee, pricesAfter] = await quoteBuy(i, shares, blockNumber);
        expect(level.quote).toEqual({
          amount: amount.toString(),
          protocolFee: protocolFee.toString(),
          creatorFee: creatorFee.toString(),
          averagePrice: wadToDecimal((amount * 10n ** 18n) / shares),
          priceAfter: wadToDecimal(pricesAfter[i]!),
        });
        // Bigger buys cost more and move the price further; the average lies between 0.5 and the price after (plus fees).
        expect(amount).toBeGreaterThan(previous);
        previous = amount;
        expect(pricesAfter[i]!).toBeGreaterThan(5n * 10n ** 17n);
        expect(Number(level.quote!.averagePrice)).toBeGreaterThan(0.5);
      }
    }
  });

  it('quotes a market past its close time as of its last tradeable second, not tradeable', async () => {
    const before = (await server.call('GET', `${V1}/discover/markets/${market}/depth`, { key })).body;
    await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [31 * 86_400]);
    await rpc(server.runtime.rpcUrl, 'evm_mine', []);
    const after = await server.call('GET', `${V1}/discover/markets/${market}/depth`, { key });
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ kind: 'lmsr', tradeable: false, basis: 'at_close' });
    expect(after.body.outcomes).toEqual(before.outcomes);
  });
});
