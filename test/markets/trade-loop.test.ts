// The trade loop end to end with a wallet-registered agent: quote (eth_call), prepare (the approval error when the
// router lacks one, equal to the recipe of GET /discover/contracts), sign and send with viem, and the trade seen in
// the market reads after the indexer catches up. Real chain, real database, nothing mocked.
import { erc20Abi, maxUint256, parseUnits, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRADE_DEFAULTS } from '../../src/core/trade-defaults.ts';
import { registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas, post, sendApprovals, sendTx } from '../support/markets.ts';
import { rpc } from '../support/anvil-rpc.ts';

let server: TestServer;
let market: { address: Address; collateral: { token: Address; symbol: string } };
let trader: Awaited<ReturnType<typeof registerWallet>>;
const A = '/api/agent/v1';

beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
  const creator = await registerWallet(server);
  await gas(server, creator.account.address);
  await fund(server, creator.account.address);
  market = (await createMarket(server, creator.key, creator.account)).market;
  trader = await registerWallet(server);
  await gas(server, trader.account.address);
  await fund(server, trader.account.address);
});
afterAll(async () => {
  await server?.close();
});

const balance = (token: Address, who: Address) => server.runtime.services.chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

describe('POST /trade/quote', () => {
  it('reads the exact cost from the market, with fees, prices and the default slippage bound', async () => {
    const shares = parseUnits('100', 6).toString();
    const res = await post(server, trader.key, '/trade/quote', { market: market.address, outcome: 0, side: 'buy', shares });
    expect(res.status).toBe(200);
    const q = res.body;
    expect(q).toMatchObject({ market: market.address, outcome: 0, side: 'buy', shares, slippageBps: TRADE_DEFAULTS.slippageBpsDefault, recommendedRefreshMs: TRADE_DEFAULTS.recommendedRefreshMs, marginalPriceBefore: '0.5' });
    expect(BigInt(q.amount)).toBe(BigInt(q.cost) + BigInt(q.fees.total));
    expect(BigInt(q.fees.total)).toBe(BigInt(q.fees.protocol) + BigInt(q.fees.creator));
    expect(BigInt(q.limit)).toBe((BigInt(q.amount) * 10_050n + 9_999n) / 10_000n);
    expect(Number(q.marginalPriceAfter)).toBeGreaterThan(0.5);
    expect(Number(q.averagePrice)).toBeGreaterThan(0.5);
    expect(Date.parse(q.expiresAt) - Date.parse(q.quotedAt)).toBe(15_000);
  });

  it('refuses bad input and unknown markets with the documented codes', async () => {
    const base = { market: market.address, outcome: 0, side: 'buy', shares: '1000' };
    expect((await post(server, trader.key, '/trade/quote', { ...base, outcome: 2 })).body.code).toBe('INVALID_PAYLOAD');
    expect((await post(server, trader.key, '/trade/quote', { ...base, shares: '0' })).body.code).toBe('INVALID_PAYLOAD');
    expect((await post(server, trader.key, '/trade/quote', { ...base, side: 'hold' })).body.code).toBe('INVALID_PAYLOAD');
    expect((await post(server, trader.key, '/trade/quote', { ...base, slippageBps: TRADE_DEFAULTS.slippageBpsMax + 1 })).body.code).toBe('INVALID_PAYLOAD');
    expect((await post(server, trader.key, '/trade/quote', { ...base, extra: 1 })).body.code).toBe('INVALID_PAYLOAD');
    expect((await post(server, trader.key, '/trade/quote', { ...base, market: `0x${'1'.repeat(40)}` })).body.code).toBe('MARKET_NOT_FOUND');
    expect((await post(server, trader.key, '/trade/quote', { ...base, chainId: 1 })).body.code).toBe('UNSUPPORTED_CHAIN');
    // Selling shares nobody holds, or pushing a price past 99.9 %, is refused by the contract.
    const oversell = await post(server, trader.key, '/trade/quote', { ...base, side: 'sell', shares: parseUnits('1', 12).toString() });
    expect(oversell.body).toMatchObject({ code: 'TRADE_REJECTED', contractError: 'SharesExceedOutstanding' });
    const huge = await post(server, trader.key, '/trade/quote', { ...base, shares: parseUnits('100000', 6).toString() });
    expect(huge.body).toMatchObject({ code: 'TRADE_REJECTED', contractError: 'PriceOutOfBand' });
  });
});

describe('buy and sell through the router', () => {
  it('answers 409 APPROVAL_REQUIRED with the recipe of /discover/contracts and its ready transaction, then prepares a transaction that costs exactly the quote', async () => {
    const contracts = (await server.call('GET', `${A}/discover/contracts`, { key: trader.key })).body.chains[0];
    const shares = parseUnits('250', 6).toString();
    const missing = await post(server, trader.key, '/trade/prepare', { market: market.address, outcome: 1, side: 'buy', shares });
    expect(missing.status).toBe(409);
    expect(missing.body.code).toBe('APPROVAL_REQUIRED');
    expect(missing.body.approvals).toEqual(contracts.approvals.filter((a: { reason: string; token: string }) => a.reason === 'buy_collateral' && a.token === market.collateral.token));
    expect(missing.body.approvals[0].amount).toBe(maxUint256.toString());
    // The recipe carries its ready transaction: sent as it is, it grants the approval.
    const approval = missing.body.approvals[0].transaction;
    expect(approval).toMatchObject({ chainId: 8453, to: market.collateral.token, value: '0' });
    expect((await sendTx(server, trader.account, approval)).status).toBe('success');

    const prepared = await post(server, trader.key, '/trade/prepare', { market: market.address, outcome: 1, side: 'buy', shares });
    expect(prepared.status).toBe(200);
    expect(prepared.body.transaction).toMatchObject({ chainId: 8453, from: trader.account.address, to: contracts.collaterals.find((c: { symbol: string }) => c.symbol === 'USDC').router, value: '0' });
    expect(prepared.body.transaction.data.slice(0, 10)).toBe(contracts.routerInterface.functions.executeTradeIntent.selector);
    expect(prepared.body.intent).toMatchObject({ market: market.address, outcome: 1, isBuy: true, shares, recipient: trader.account.address, limit: prepared.body.quote.limit });

    const before = await balance(market.collateral.token, trader.account.address);
    const receipt = await sendTx(server, trader.account, prepared.body.transaction);
    expect(receipt.status).toBe('success');
    expect(before - (await balance(market.collateral.token, trader.account.address))).toBe(BigInt(prepared.body.quote.amount));

    await server.runtime.services.indexer.syncNow();
    const detail = (await server.call('GET', `${A}/discover/markets/${market.address}`, { key: trader.key })).body.market;
    expect(detail.tradeCount).toBe(1);
    expect(detail.volume).toBe(prepared.body.quote.cost);
    expect(detail.outcomes[1].price).toBe(prepared.body.quote.pricesAfter[1]);
    expect(detail.outcomes[1].outstandingShares).toBe(shares);
    const trades = (await server.call('GET', `${A}/discover/markets/${market.address}/trades`, { key: trader.key })).body.trades;
    expect(trades[0]).toMatchObject({ txHash: receipt.transactionHash, trader: trader.account.address, outcome: 1, side: 'buy', shares });
    const holders = (await server.call('GET', `${A}/discover/markets/${market.address}/holders`, { key: trader.key })).body;
    expect(JSON.stringify(holders)).toContain(trader.account.address);
  });

  it('a sell needs the outcome-token approval for the router; then it pays exactly the quoted proceeds', async () => {
    const shares = parseUnits('100', 6).toString();
    const missing = await post(server, trader.key, '/trade/prepare', { market: market.address, outcome: 1, side: 'sell', shares });
    expect(missing.status).toBe(409);
    const contracts = (await server.call('GET', `${A}/discover/contracts`, { key: trader.key })).body.chains[0];
    const router = contracts.collaterals.find((c: { symbol: string }) => c.symbol === 'USDC').router;
    expect(missing.body.approvals).toEqual(contracts.approvals.filter((a: { reason: string; spender: string }) => a.reason === 'sell_outcome_token' && a.spender === router));
    await sendApprovals(server, trader.account, missing.body.approvals);

    const prepared = await post(server, trader.key, '/trade/prepare', { market: market.address, outcome: 1, side: 'sell', shares });
    expect(prepared.status).toBe(200);
    const before = await balance(market.collateral.token, trader.account.address);
    await sendTx(server, trader.account, prepared.body.transaction);
    expect((await balance(market.collateral.token, trader.account.address)) - before).toBe(BigInt(prepared.body.quote.amount));

    // Selling more than the wallet holds is refused before anything is signed.
    const tooMany = await post(server, trader.key, '/trade/prepare', { market: market.address, outcome: 1, side: 'sell', shares: parseUnits('200', 6).toString() });
    expect(tooMany.body.code).toBe('INSUFFICIENT_BALANCE');
    await server.runtime.services.indexer.syncNow();
    expect((await server.call('GET', `${A}/discover/markets/${market.address}`, { key: trader.key })).body.market.tradeCount).toBe(2);
  });

  it('a buy larger than the balance answers INSUFFICIENT_BALANCE; keys without trade:execute cannot prepare', async () => {
    const poor = await registerWallet(server);
    await gas(server, poor.account.address);
    await sendApprovals(server, poor.account, [{ kind: 'erc20_approve', token: market.collateral.token, spender: (await server.call('GET', `${A}/discover/contracts`, { key: poor.key })).body.chains[0].collaterals.find((c: { symbol: string }) => c.symbol === 'USDC').router }]);
    const res = await post(server, poor.key, '/trade/prepare', { market: market.address, outcome: 0, side: 'buy', shares: '1000000' });
    expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
    const quoteOnly = await server.key('propose');
    expect((await post(server, quoteOnly, '/trade/prepare', { market: market.address, outcome: 0, side: 'buy', shares: '1000000' })).body.code).toBe('INSUFFICIENT_TIER');
  });

  it('a market past its close time is not tradeable', async () => {
    const creator = await registerWallet(server);
    await gas(server, creator.account.address);
    await fund(server, creator.account.address);
    const now = (await server.runtime.services.chain.client.getBlock()).timestamp;
    const soon = (await createMarket(server, creator.key, creator.account, { closeTime: new Date(Number(now + 3_700n) * 1000).toISOString() })).market;
    await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [3_800]);
    await rpc(server.runtime.rpcUrl, 'evm_mine', []);
    const res = await post(server, trader.key, '/trade/quote', { market: soon.address, outcome: 0, side: 'buy', shares: '1000000' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('MARKET_NOT_TRADEABLE');
  });
});
