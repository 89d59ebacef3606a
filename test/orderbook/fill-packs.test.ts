// Buying fill packs with USDC on chain: the offers, the purchase from a confirmed transfer (pending until it has
// FILL_PACK_CONFIRMATIONS blocks), each transfer paying once, every way a payment can be wrong, and the 402
// boundary lifted by a purchase (purchased fills then count down).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, parseUnits, type Address, type Hex } from 'viem';
import { ManualClock } from '../../src/core/clock.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { fund, gas, sendTx, tokens } from '../support/markets.ts';
import { createOrderBookMarket, expectReservationsAgree } from '../support/orderbook.ts';
import { nextFullHour } from '../support/time.ts';

const A = '/api/agent/v1';
let server: TestServer;
const clock = new ManualClock(nextFullHour());

beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: {
      REGISTRATION_PATHS: 'wallet',
      TRUST_PROXY: 'true',
      LEDGER_BATCH_INTERVAL_MS: '3600000',
      FILLS_FREE_PER_MONTH: '1',
      FILL_PACKS: '10:1200,3:500',
      FILL_PACK_CONFIRMATIONS: '2',
    },
  });
});
afterAll(async () => server?.close());

const post = (key: string, path: string, body: unknown) => server.call('POST', `${A}${path}`, { key, body, idempotencyKey: idemKey('fp') });
const transfer = (to: Address, amount: bigint, token: Address = tokens(server).USDC) => ({ to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) });
const mine = () => rpc(server.runtime.rpcUrl, 'evm_mine', []);

describe('fill packs', () => {
  it('offers the packs cheapest first with the USDC transfer that pays each', async () => {
    const alice = await registerWallet(server, undefined, 'pack-offers');
    const offers = await server.call('GET', `${A}/orderbook/fill-packs`, { key: alice.key });
    expect(offers.status).toBe(200);
    const operator = server.runtime.operator.toLowerCase();
    expect(offers.body).toMatchObject({ enabled: true, confirmations: 2 });
    expect(offers.body.packs.map((p: { fills: number; usdCents: number; payment: { amount: string } }) => [p.fills, p.usdCents, p.payment.amount])).toEqual([
      [3, 500, '5000000'],
      [10, 1200, '12000000'],
    ]);
    const [cheapest] = offers.body.packs;
    expect(cheapest.payment).toMatchObject({ symbol: 'USDC', decimals: 6, token: tokens(server).USDC, chainId: server.config.chain.id });
    expect(cheapest.payment.payTo.toLowerCase()).toBe(operator);
    expect(cheapest.transaction).toEqual({ chainId: server.config.chain.id, value: '0', ...transfer(cheapest.payment.payTo, 5_000_000n) });
    // GET /me lists the same packs, cheapest first.
    expect((await server.call('GET', `${A}/me`, { key: alice.key })).body.fills.packs).toEqual([
      { fills: 3, usdCents: 500 },
      { fills: 10, usdCents: 1200 },
    ]);
  });

  it('lifts the 402 boundary: a confirmed payment credits the pack once, and purchased fills count down', async () => {
    const maker = await registerWallet(server, undefined, 'pack-maker');
    const buyer = await registerWallet(server, undefined, 'pack-buyer');
    await gas(server, maker.account.address);
    await gas(server, buyer.account.address);
    await fund(server, buyer.account.address, { usdc: parseUnits('100', 6), pm: 0n });
    const market = await createOrderBookMarket(server, maker, 'Will the fill-pack market resolve Yes?', new Date(clock.now().getTime() + 30 * 86_400_000));
    const order = (agent: typeof buyer) => post(agent.key, '/orderbook/place-order', { market: market.address, outcome: 1, action: 'buy', price: '0.5', shares: '1000000', tif: 'IOC' });

    // The maker's bid (maker has its one free fill); the buyer takes one share and has no fills left.
    expect((await post(maker.key, '/orderbook/place-order', { market: market.address, outcome: 0, action: 'buy', price: '0.5', shares: '10000000' })).status).toBe(201);
    expect((await order(buyer)).body.status).toBe('filled');
    const exhausted = await order(buyer);
    expect(exhausted.status).toBe(402);
    expect(exhausted.body.code).toBe('FILL_ALLOWANCE_EXHAUSTED');

    // Pay for the 3-fill pack. Mined but with 1 of 2 confirmations: pending, with Retry-After.
    const offers = (await server.call('GET', `${A}/orderbook/fill-packs`, { key: buyer.key })).body.packs;
    const paid = await sendTx(server, buyer.account, offers[0].transaction);
    expect(paid.status).toBe('success');
    const early = await post(buyer.key, '/orderbook/fill-packs/purchase', { fills: 3, txHash: paid.transactionHash });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'PAYMENT_TX_PENDING', confirmations: 1, required: 2 });
    expect(early.headers['retry-after']).toBe('2');

    await mine();
    const bought = await post(buyer.key, '/orderbook/fill-packs/purchase', { fills: 3, txHash: paid.transactionHash });
    expect(bought.status).toBe(201);
    expect(bought.body.purchase).toMatchObject({ fills: 3, usdCents: 500, amount: '5000000', txHash: paid.transactionHash.toLowerCase(), payer: buyer.account.address.toLowerCase() });
    expect(bought.body.fills).toMatchObject({ freeRemaining: 0, paidRemaining: 3, remaining: 3 });
    const usdc = await server.runtime.services.chain.client.readContract({ address: tokens(server).USDC, abi: erc20Abi, functionName: 'balanceOf', args: [buyer.account.address] });
    expect(usdc).toBe(parseUnits('95', 6));

    // The same transfer pays once, whoever names it; the maker did not send it.
    const again = await post(buyer.key, '/orderbook/fill-packs/purchase', { fills: 3, txHash: paid.transactionHash });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('PAYMENT_ALREADY_CLAIMED');
    const foreign = await post(maker.key, '/orderbook/fill-packs/purchase', { fills: 3, txHash: paid.transactionHash });
    expect(foreign.status).toBe(422);
    expect(foreign.body.code).toBe('PAYMENT_TX_MISMATCH');

    // The boundary is lifted; each fill now takes one purchased fill.
    expect((await order(buyer)).status).toBe(201);
    expect((await server.call('GET', `${A}/me`, { key: buyer.key })).body.fills).toMatchObject({ paidRemaining: 2, remaining: 2 });
    const rows = await server.runtime.database.db.selectFrom('fill_pack_purchases').selectAll().where('tx_hash', '=', paid.transactionHash.toLowerCase()).execute();
    expect(rows).toHaveLength(1);
  });

  it('takes PM at its published price as well as USDC', async () => {
    const buyer = await registerWallet(server, undefined, 'pack-pm-buyer');
    await gas(server, buyer.account.address);
    await fund(server, buyer.account.address, { usdc: 0n, pm: parseUnits('10000', 18) });
    const offers = (await server.call('GET', `${A}/orderbook/fill-packs`, { key: buyer.key })).body.packs;
    const cheapest = offers[0];
    // $5 at $0.01 a PM: 500 PM; the USDC way is listed first, as `payment` is.
    expect(cheapest.payments.map((p: { payment: { symbol: string; amount: string } }) => [p.payment.symbol, p.payment.amount])).toEqual([
      ['USDC', '5000000'],
      ['PM', parseUnits('500', 18).toString()],
    ]);
    expect(cheapest.payments[0]).toEqual({ payment: cheapest.payment, transaction: cheapest.transaction });
    const byPm = cheapest.payments[1];
    expect(byPm.payment).toMatchObject({ token: tokens(server).PM, decimals: 18 });
    expect(byPm.transaction).toEqual({ chainId: server.config.chain.id, value: '0', ...transfer(byPm.payment.payTo, parseUnits('500', 18), tokens(server).PM) });
    const paid = await sendTx(server, buyer.account, byPm.transaction);
    await mine();
    const bought = await post(buyer.key, '/orderbook/fill-packs/purchase', { fills: 3, txHash: paid.transactionHash });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body.purchase).toMatchObject({ fills: 3, usdCents: 500, amount: parseUnits('500', 18).toString(), token: tokens(server).PM.toLowerCase() });
    // A PM transfer of the USDC amount is not the PM price.
    const short = await sendTx(server, buyer.account, { to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [byPm.payment.payTo, 5_000_000n] }) });
    await mine();
    expect((await post(buyer.key, '/orderbook/fill-packs/purchase', { fills: 3, txHash: short.transactionHash })).body.code).toBe('PAYMENT_TX_MISMATCH');
  });

  it('refuses a payment that is wrong: another amount or pack, another recipient, not the transfer call itself, reverted, unknown, malformed', async () => {
    const carol = await registerWallet(server, undefined, 'pack-carol');
    await gas(server, carol.account.address);
    await fund(server, carol.account.address, { usdc: parseUnits('100', 6), pm: 0n });
    const purchase = (body: unknown) => post(carol.key, '/orderbook/fill-packs/purchase', body);
    const operator = server.runtime.operator;

    // 12 USDC pays the 10-fill pack, not the 3-fill one.
    const twelve = await sendTx(server, carol.account, transfer(operator, 12_000_000n));
    await mine();
    const wrongPack = await purchase({ fills: 3, txHash: twelve.transactionHash });
    expect(wrongPack.status).toBe(422);
    expect(wrongPack.body.code).toBe('PAYMENT_TX_MISMATCH');
    expect((await purchase({ fills: 10, txHash: twelve.transactionHash })).body.fills).toMatchObject({ paidRemaining: 10 });

    // The right amount to someone else pays nothing.
    const elsewhere = await sendTx(server, carol.account, transfer(carol.account.address, 5_000_000n));
    await mine();
    expect((await purchase({ fills: 3, txHash: elsewhere.transactionHash })).body.code).toBe('PAYMENT_TX_MISMATCH');

    // The right transfer made inside another call (here transferFrom; a trade's protocol fee to the operator is
    // the same kind of log) is not a payment: only the offer's own transfer call pays.
    const usdc = tokens(server).USDC;
    await sendTx(server, carol.account, { to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [carol.account.address, 5_000_000n] }) });
    const indirect = await sendTx(server, carol.account, { to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [carol.account.address, operator, 5_000_000n] }) });
    expect(indirect.status).toBe('success');
    await mine();
    const notACall = await purchase({ fills: 3, txHash: indirect.transactionHash });
    expect(notACall.status).toBe(422);
    expect(notACall.body).toMatchObject({ code: 'PAYMENT_TX_MISMATCH' });
    expect(notACall.body.detail).toContain('not one of those exact transfer calls');

    // A transfer beyond the balance reverts (sent with a fixed gas limit, so it is mined).
    const reverted = await sendTx(server, carol.account, transfer(operator, parseUnits('1000', 6)), { gas: 100_000n });
    expect(reverted.status).toBe('reverted');
    await mine();
    const revertedAnswer = await purchase({ fills: 3, txHash: reverted.transactionHash });
    expect(revertedAnswer.status).toBe(409);
    expect(revertedAnswer.body.code).toBe('PAYMENT_TX_REVERTED');

    const unknown = await purchase({ fills: 3, txHash: `0x${'ab'.repeat(32)}` as Hex });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('PAYMENT_TX_NOT_FOUND');
    const noPack = await purchase({ fills: 7, txHash: twelve.transactionHash });
    expect(noPack.status).toBe(404);
    expect(noPack.body.code).toBe('FILL_PACK_NOT_FOUND');
    for (const body of [{ fills: 3, txHash: '0x1234' }, { fills: 0, txHash: twelve.transactionHash }, { fills: 3 }, { fills: 3, txHash: twelve.transactionHash, extra: true }]) {
      const bad = await purchase(body);
      expect(bad.status).toBe(400);
      expect(bad.headers['content-type']).toContain('application/problem+json');
    }
    expect((await purchase({ fills: 3, txHash: twelve.transactionHash, chainId: 1 })).body.code).toBe('UNSUPPORTED_CHAIN');
    // Nothing of the refused payments was credited.
    expect((await server.call('GET', `${A}/me`, { key: carol.key })).body.fills).toMatchObject({ paidRemaining: 10 });

    // Purchased fills are capped at 2^31 − 1 per agent: a pack beyond it is refused and its payment stays unclaimed.
    const db = server.runtime.database.db;
    const agentId = (await server.call('GET', `${A}/me`, { key: carol.key })).body.id as string;
    await db.updateTable('agents').set({ paid_fills_remaining: 2_147_483_647 - 2 }).where('id', '=', agentId).execute();
    const full = await sendTx(server, carol.account, transfer(operator, 5_000_000n));
    await mine();
    const capped = await purchase({ fills: 3, txHash: full.transactionHash });
    expect(capped.status).toBe(409);
    expect(capped.body.code).toBe('FILL_PACK_LIMIT');
    expect(await db.selectFrom('fill_pack_purchases').select('id').where('tx_hash', '=', full.transactionHash.toLowerCase()).execute()).toEqual([]);
    await db.updateTable('agents').set({ paid_fills_remaining: 0 }).where('id', '=', agentId).execute();
    expect((await purchase({ fills: 3, txHash: full.transactionHash })).body.fills).toMatchObject({ paidRemaining: 3 });
  });
});

describe('reservations kept per owner', () => {
  it('hold exactly what the resting orders reserve, after everything above', async () => {
    await expectReservationsAgree(server);
  });
});
