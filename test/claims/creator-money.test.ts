// The creator's money out through the service, on a real chain: creator funds read truthfully (claimable, returnable,
// then collected and returned), collected by the protocol to the creator only, the residual swept once, and a bond
// slashed by a binding vote settled by the keeper — 5% keeper and 75% treasury (both the operator here), 20% to the
// voters of the final outcome, to the wei.
import { encodeFunctionData, erc20Abi, maxUint256, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATION_BOND_PM } from '../../src/core/markets/fees.ts';
import { ballotTypedData } from '../../src/core/resolution/votes.ts';
import { registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { buyShares, funded as fundedAgent, resolverTx, type Agent } from '../support/claims.ts';
import { createMarket, fund, gas, sendTx, tokens } from '../support/markets.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000', VOTE_QUORUM: '2' } });
});
afterAll(async () => server?.close());

const A = '/api/agent/v1';
let idem = 0;
const keyed = (key: string, path: string, body: unknown) => server.call('POST', `${A}${path}`, { key, body, idempotencyKey: `money-${++idem}` });
const sync = () => server.runtime.services.indexer.syncNow();
const advance = async (s: number) => {
  await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [s]);
  await rpc(server.runtime.rpcUrl, 'evm_mine');
};
const balanceOf = (token: string, who: string) => server.runtime.services.chain.client.readContract({ address: token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [who as Address] });
const resolverCall = (functionName: string, args: readonly unknown[]) => resolverTx(server, functionName, args);

const funded = (name: string) => fundedAgent(server, name);
const buy = (agent: Agent, market: string, outcome: number, shares: bigint) => buyShares(server, agent, market, outcome, shares);
const fundsOf = async (agent: Agent) => (await server.call('GET', `${A}/trade/creator-funds`, { key: agent.key })).body;

describe('creator money', () => {
  it('fees and bond collected to the creator once; the residual swept once; funds read truthfully throughout', async () => {
    const creator = await funded('money-creator');
    const trader = await funded('money-trader');
    const { market } = await createMarket(server, creator.key, creator.account);
    const address = (market.address as string).toLowerCase();
    const usdc = market.collateral.token as string;
    const open = (await createMarket(server, creator.key, creator.account, { question: 'Will the other market stay open?' })).market.address.toLowerCase();
    await sync();
    await buy(trader, address, 0, parseUnits('60', 6));
    await sync();
    expect((await fundsOf(creator)).creatorFunds.markets.find((m: { marketAddress: string }) => m.marketAddress === address)).toMatchObject({ marketBalance: { status: 'too_early' }, bond: { status: 'pending' } });
    const notYet = await keyed(creator.key, '/sweep/execute', { marketAddress: open, chainId: 8453 });
    expect([notYet.status, notYet.body.code]).toEqual([409, 'MARKET_NOT_RESOLVED']);

    await sendTx(server, creator.account, resolverCall('propose', [address, 1]));
    await sync();
    expect((await fundsOf(creator)).creatorFunds.markets.find((m: { marketAddress: string }) => m.marketAddress === address).marketBalance.status).toBe('challenge_window');
    await advance(7_201);
    await server.runtime.services.resolutionKeeper.runOnce();
    await sync();
    const ready = (await fundsOf(creator)).creatorFunds.markets.find((m: { marketAddress: string }) => m.marketAddress === address);
    expect(ready).toMatchObject({ marketBalance: { status: 'claimable' }, bond: { status: 'returnable', displayStatus: 'ready' } });
    const fees = BigInt(ready.marketBalance.amount);
    expect(fees).toBeGreaterThan(0n);

    // Somebody else naming the market gets nothing of it.
    expect((await keyed(trader.key, '/trade/creator-funds/collect', { marketAddresses: [address] })).body.collections[0]).toMatchObject({ marketBalance: { state: 'SKIPPED', skippedReason: expect.stringMatching(/^not_creator/) } });
    const before = { usdc: await balanceOf(usdc, creator.account.address), pm: await balanceOf(tokens(server).PM, creator.account.address) };
    const collected = await keyed(creator.key, '/trade/creator-funds/collect', {});
    expect(collected.status, collected.text).toBe(200);
    expect(collected.body).toMatchObject({ walletAddress: creator.account.address.toLowerCase(), hasMore: false, collections: [{ marketAddress: address, marketBalance: { state: 'COLLECTED', amount: fees.toString() }, bond: { state: 'COLLECTED' } }] });
    expect((await balanceOf(usdc, creator.account.address)) - before.usdc).toBe(fees);
    expect((await balanceOf(tokens(server).PM, creator.account.address)) - before.pm).toBe(CREATION_BOND_PM);
    expect((await keyed(creator.key, '/trade/creator-funds/collect', { marketAddresses: [address] })).body.collections[0]).toMatchObject({ marketBalance: { state: 'NOTHING_TO_COLLECT' }, bond: { state: 'SKIPPED', skippedReason: expect.stringMatching(/^settled/) } });
    await sync();
    const after = await fundsOf(creator);
    expect(after.creatorFunds.markets.find((m: { marketAddress: string }) => m.marketAddress === address)).toMatchObject({ marketBalance: { status: 'collected' }, bond: { status: 'returned', displayStatus: 'returned', reasonCode: 'settled' } });
    expect(after.creatorFunds.summary.bondReturnedWei).toBe(CREATION_BOND_PM.toString());

    // The residual: everything but the trader's unredeemed winning shares, to the creator, once.
    const held = await balanceOf(usdc, address);
    const beforeSweep = await balanceOf(usdc, creator.account.address);
    const swept = await keyed(trader.key, '/sweep/execute', { marketAddress: address, chainId: 8453 });
    expect(swept.status, swept.text).toBe(200);
    expect(swept.body).toMatchObject({ completion: 'swept', marketAddress: address, recipient: creator.account.address.toLowerCase(), source: 'receipt_event', amountSwept: (held - parseUnits('60', 6)).toString() });
    expect((await balanceOf(usdc, creator.account.address)) - beforeSweep).toBe(held - parseUnits('60', 6));
    await sync(); // "already swept" is the projected ResidualSwept
    expect((await keyed(trader.key, '/sweep/execute', { marketAddress: address, chainId: 8453 })).body).toMatchObject({ completion: 'already_swept', txHash: swept.body.txHash, source: 'chain_event' });
    const batch = await server.call('POST', `${A}/sweep`, { key: creator.key, body: { markets: [{ chainId: 8453, marketAddress: address }, { chainId: 8453, marketAddress: `0x${'2'.repeat(40)}` }] } });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.results).toEqual([expect.objectContaining({ completion: 'already_swept' }), { marketAddress: `0x${'2'.repeat(40)}`, error: expect.objectContaining({ code: 'MARKET_NOT_FOUND' }) }]);
  });

  it('a bond slashed by a binding vote: the keeper settles it and pays the voters of the final outcome their 20%', async () => {
    const { humans, resolutionKeeper, chain } = server.runtime.services;
    const resolver = chain.lane().resolver;
    const creator = await funded('slash-creator');
    const { market } = await createMarket(server, creator.key, creator.account);
    const address = (market.address as string).toLowerCase() as Address;
    await sync();
    const challenger = privateKeyToAccount(generatePrivateKey());
    await gas(server, challenger.address);
    await fund(server, challenger.address, { usdc: 0n, pm: parseUnits('1000', 18) });
    await sendTx(server, challenger, { to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [resolver, maxUint256] }) });
    await sendTx(server, creator.account, resolverCall('propose', [address, 1]));
    await sendTx(server, challenger, resolverCall('challenge', [address, 2]));
    await sync();
    expect(await resolutionKeeper.runOnce()).toEqual([`openVote ${address}`]);
    await sync();
    const voters = [await registerWallet(server, undefined, 'slash-v1'), await registerWallet(server, undefined, 'slash-v2')];
    for (const v of voters) {
      await humans.attest(v.account.address, 'test');
      const signature = await v.account.signTypedData(ballotTypedData(8453, resolver, { market: address, round: 1, outcome: 2 }));
      expect((await keyed(v.key, `/resolution/votes/8453:${address}:1/ballots`, { walletAddress: v.account.address, outcome: 2, signature })).status).toBe(201);
    }
    await advance(86_401);
    expect(await resolutionKeeper.runOnce()).toEqual([`recordVerdict ${address}`]);
    await sync();
    const pm = tokens(server).PM;
    const before = await Promise.all(voters.map((v) => balanceOf(pm, v.account.address)));
    const creatorBefore = await balanceOf(pm, creator.account.address);
    const challengerBefore = await balanceOf(pm, challenger.address);
    expect(await server.runtime.services.payoutKeeper.runOnce()).toEqual([`settleChallengeBond ${address}`, `settleBond ${address}`, `distributeVoterRewards ${address}`]);
    expect((await balanceOf(pm, challenger.address)) - challengerBefore).toBe(CREATION_BOND_PM); // the challenge was right
    const share = (CREATION_BOND_PM * 2_000n) / 10_000n / 2n;
    for (const [i, v] of voters.entries()) expect((await balanceOf(pm, v.account.address)) - before[i]!).toBe(share);
    expect(await balanceOf(pm, creator.account.address)).toBe(creatorBefore);
    await sync();
    expect(await server.runtime.services.payoutKeeper.runOnce()).toEqual([]); // settled once
    expect((await fundsOf(creator)).creatorFunds.markets.find((m: { marketAddress: string }) => m.marketAddress === address).bond).toMatchObject({ status: 'unavailable' });
    const slashed = await server.runtime.database.db.selectFrom('market_payouts').select(['kind', 'amount', 'shares']).where('market', '=', address).orderBy('block_number').execute();
    expect(slashed).toEqual([
      { kind: 'challenge_bond', amount: CREATION_BOND_PM.toString(), shares: null },
      { kind: 'bond_slashed', amount: (CREATION_BOND_PM / 20n).toString(), shares: (CREATION_BOND_PM / 5n).toString() },
      { kind: 'voter_rewards', amount: share.toString(), shares: '2' },
    ]);
  });
});
