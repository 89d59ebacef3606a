// PM purchase end to end (docs/economy.md), on anvil and the suite's database: the terms; a relay purchase with a real
// EIP-2612 permit signed by viem, moving USDC and delivering PM (balances read on chain), and each of its refusals; a
// card purchase through the real `stripe` client against a local stand-in of the provider's API, from checkout
// session to PM delivered once despite duplicate webhooks; the cap; the signup-grant read; wallet auth on each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, parseSignature, parseUnits, type Address, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { siweMessage } from '../../src/core/siwe.ts';
import { pmForUsd } from '../../src/core/economy/terms.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { idemKey, newClient, registerWallet } from '../support/agents.ts';
import { fund, gas, tokens } from '../support/markets.ts';
import { startStripeServer } from '../support/stripe-server.ts';
import { waitFor } from '../support/wait.ts';

const E = '/api/v1/economy';
const CAP_USD = 60;
type Stripe = Awaited<ReturnType<typeof startStripeServer>>;

let stripe: Stripe;
let server: TestServer;
let bare: TestServer;
let executeKey: string;
beforeAll(async () => {
  stripe = await startStripeServer();
  [server, bare] = await Promise.all([
    startTestServer({
      env: {
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
        STRIPE_API_BASE: stripe.url,
        PM_CARD_CAP_USD: String(CAP_USD),
        REGISTRATION_PATHS: 'wallet',
        // Each buyer signs in from a client address of its own (newClient), as real buyers do.
        TRUST_PROXY: 'true',
      },
    }),
    startTestServer({ env: { TRUST_PROXY: 'true' } }),
  ]);
  executeKey = await server.key('execute');
});
afterAll(async () => {
  await server?.close();
  await bare?.close();
  await stripe?.close();
});

const client = () => server.runtime.services.chain.client;
const saleAddress = () => server.runtime.deployments.PmSale!.address as Address;
const balanceOf = (token: Address, who: Address) => client().readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

/** A SIWE session for the account: the token of developerAuthHeader. */
async function session(s: TestServer, account: PrivateKeyAccount): Promise<string> {
  const headers = newClient();
  const { nonce } = (await s.call('POST', '/api/auth/nonce', { headers })).body;
  const message = siweMessage({ publicBaseUrl: s.config.publicBaseUrl, chainId: s.config.chain.id }, { address: account.address, nonce, issuedAt: s.runtime.clock.now() });
  const res = await s.call('POST', '/api/auth/verify', { body: { message, signature: await account.signMessage({ message }), returnToken: true }, headers });
  expect(res.status, res.text).toBe(200);
  return res.body.token as string;
}

interface Buyer {
  account: PrivateKeyAccount;
  token: string;
}

async function buyer(s: TestServer = server, usdc = parseUnits('1000', 6)): Promise<Buyer> {
  const account = privateKeyToAccount(generatePrivateKey());
  await gas(s, account.address);
  if (usdc > 0n) await fund(s, account.address, { usdc, pm: 0n });
  return { account, token: await session(s, account) };
}

const call = (method: string, path: string, b: Buyer | null, opts: { body?: unknown; key?: string; idempotencyKey?: string; s?: TestServer } = {}): Promise<CallResult> =>
  (opts.s ?? server).call(method, `${E}${path}`, {
    key: opts.key ?? executeKey,
    body: opts.body,
    idempotencyKey: method === 'POST' ? (opts.idempotencyKey ?? idemKey('economy')) : undefined,
    headers: b ? { 'Svc-Wallet-Session': b.token } : {},
  });

/** An EIP-2612 permit of TestUSDC for the sale contract, signed by `signer` (the buyer, unless a forgery is wanted). */
async function permit(b: Buyer, value: bigint, opts: { signer?: PrivateKeyAccount; deadline?: number; spender?: Address } = {}) {
  const usdc = tokens(server).USDC;
  const nonce = await client().readContract({ address: usdc, abi: loadArtifact('TestUSDC').abi, functionName: 'nonces', args: [b.account.address] } as never) as bigint;
  const deadline = opts.deadline ?? Math.floor(server.runtime.clock.now().getTime() / 1000) + 3600;
  const signature = await (opts.signer ?? b.account).signTypedData({
    domain: { name: 'Test USD Coin', version: '1', chainId: server.config.chain.id, verifyingContract: usdc },
    types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
    primaryType: 'Permit',
    message: { owner: b.account.address, spender: opts.spender ?? saleAddress(), value, nonce, deadline: BigInt(deadline) },
  });
  const { v, r, s } = parseSignature(signature);
  return { deadline, v: Number(v), r, s };
}

const relayBody = async (b: Buyer, paymentAmount: bigint, minPmOut: bigint, opts: Parameters<typeof permit>[2] = {}) => ({
  paymentAmount: paymentAmount.toString(),
  minPmOut: minPmOut.toString(),
  ...(await permit(b, paymentAmount, opts)),
});

/** Runs a sale-owner call from the operator (pause, unpause). */
async function saleOwner(functionName: 'pause' | 'unpause'): Promise<void> {
  const tx = await server.runtime.relayer.send({ operationId: `test:sale:${functionName}:${idemKey()}`, idempotencyKey: idemKey(), to: saleAddress(), data: encodeFunctionData({ abi: loadArtifact('PmSale').abi, functionName } as never) });
  expect(tx.state).toBe('confirmed');
}

const price = () => server.config.economy.priceUsdcPerPm;
const expectProblem = (res: CallResult, status: number, code: string) => {
  expect(res.status, res.text).toBe(status);
  expect(res.body.code, res.text).toBe(code);
};

describe('purchase terms', () => {
  it('publishes the price, the bundles, the cap and the relay permit, with the sale as the chain has it', async () => {
    const res = await call('GET', '/purchase-terms', null);
    expect(res.status, res.text).toBe(200);
    const t = res.body;
    expect(t.price).toEqual({ usdcPerPm: '10000', usdPerPm: '0.01', pmPerUsd: '100' });
    expect(t.sale.state).toBe('open');
    expect(t.sale.address.toLowerCase()).toBe(saleAddress().toLowerCase());
    expect(BigInt(t.sale.inventoryWei)).toBe(await balanceOf(tokens(server).PM, saleAddress()));
    expect(t.methods.card).toMatchObject({ available: true, unavailableReason: null, provider: 'stripe', cap: { usd: CAP_USD, periodHours: 24 } });
    expect(t.methods.card.bundles).toEqual([5, 10, 25, 50, 100].map((usd) => ({ usd, pmWei: pmForUsd(usd, price()).toString() })));
    expect(t.methods.relay).toMatchObject({ available: true, gasSponsored: true, minPaymentAmount: '1000000' });
    expect(t.methods.relay.permit.domain).toEqual({ name: 'Test USD Coin', version: '1', chainId: server.config.chain.id, verifyingContract: tokens(server).USDC });
  });

  it('says card is unavailable without a provider, and the card endpoints answer 503', async () => {
    const key = await bare.key('execute');
    const terms = await call('GET', '/purchase-terms', null, { s: bare, key });
    expect(terms.body.methods.card).toMatchObject({ available: false, unavailableReason: 'NOT_CONFIGURED', provider: null });
    const b = await buyer(bare, 0n);
    const res = await call('POST', '/checkout-session', b, { s: bare, key, body: { usd: 5 } });
    expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.body.reason).toBe('CARD_NOT_CONFIGURED');
    expectProblem(await call('GET', '/purchase-status/cs_test_unknown123', b, { s: bare, key }), 503, 'SERVICE_UNAVAILABLE');
    // No provider, no provider webhook.
    const hook = await bare.call('POST', '/api/v1/economy/provider-webhook', { payload: '{}', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, unchecked: true });
    expectProblem(hook, 404, 'NOT_FOUND');
  });
});

describe('wallet authentication', () => {
  it('answers 401 WALLET_AUTH_REQUIRED without a session on every wallet operation, and accepts the cookie scheme', async () => {
    expectProblem(await call('POST', '/checkout-session', null, { body: { usd: 5 } }), 401, 'WALLET_AUTH_REQUIRED');
    expectProblem(await call('POST', '/relay-purchase', null, { body: { paymentAmount: '1', minPmOut: '1', deadline: 1, v: 27, r: `0x${'1'.repeat(64)}`, s: `0x${'2'.repeat(64)}` } }), 401, 'WALLET_AUTH_REQUIRED');
    expectProblem(await call('GET', '/purchase-status/cs_test_12345678', null), 401, 'WALLET_AUTH_REQUIRED');
    expectProblem(await call('GET', '/signup-grant', null), 401, 'WALLET_AUTH_REQUIRED');
    expectProblem(await call('GET', '/signup-grant', { account: privateKeyToAccount(generatePrivateKey()), token: 'svc_ws_not-a-session' }), 401, 'WALLET_AUTH_REQUIRED');
    const b = await buyer(server, 0n);
    const viaCookie = await server.call('GET', `${E}/signup-grant`, { key: executeKey, headers: { cookie: `svc_session=${b.token}` } });
    expect(viaCookie.status, viaCookie.text).toBe(200);
  });
});

describe('relay purchase', () => {
  it('buys PM with a permit the buyer signed, the relayer paying the gas; the chain confirms it; a retry answers the same', async () => {
    const b = await buyer();
    const { USDC, PM } = tokens(server);
    const operator = server.runtime.relayer.address;
    const paymentAmount = parseUnits('12.5', 6);
    const expected = (paymentAmount * 10n ** 18n) / price();
    const [usdcBefore, pmBefore, treasuryBefore, ethBefore] = await Promise.all([balanceOf(USDC, b.account.address), balanceOf(PM, b.account.address), balanceOf(USDC, operator), client().getBalance({ address: b.account.address })]);
    const body = await relayBody(b, paymentAmount, expected);
    const idem = idemKey('relay');
    const res = await call('POST', '/relay-purchase', b, { body, idempotencyKey: idem });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ buyer: b.account.address.toLowerCase(), paymentAmount: paymentAmount.toString(), pmReceived: expected.toString(), chainId: server.config.chain.id });
    expect(await balanceOf(USDC, b.account.address)).toBe(usdcBefore - paymentAmount);
    expect(await balanceOf(PM, b.account.address)).toBe(pmBefore + expected);
    expect(await balanceOf(USDC, operator)).toBe(treasuryBefore + paymentAmount);
    expect(await client().getBalance({ address: b.account.address })).toBe(ethBefore); // no gas spent by the buyer
    const status = await server.call('GET', res.body.statusUrl);
    expect(status.status, status.text).toBe(200);
    expect(status.body.state).toBe('CONFIRMED');
    const replay = await call('POST', '/relay-purchase', b, { body, idempotencyKey: idem });
    expect(replay.body).toEqual(res.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    // The same permit under another key finds the same transaction: nothing is bought twice.
    const again = await call('POST', '/relay-purchase', b, { body });
    expect(again.status, again.text).toBe(200);
    expect(again.body.txHash).toBe(res.body.txHash);
    expect(await balanceOf(PM, b.account.address)).toBe(pmBefore + expected);
  });

  it('refuses what the sale contract would refuse, with the spec codes, spending nothing', async () => {
    const b = await buyer(server, parseUnits('50', 6));
    const { USDC } = tokens(server);
    const before = await balanceOf(USDC, b.account.address);
    expectProblem(await call('POST', '/relay-purchase', b, { body: await relayBody(b, 999_999n, 1n) }), 400, 'AMOUNT_BELOW_MINIMUM');
    const quote = (parseUnits('5', 6) * 10n ** 18n) / price();
    expectProblem(await call('POST', '/relay-purchase', b, { body: await relayBody(b, parseUnits('5', 6), quote + 1n) }), 409, 'QUOTE_MISMATCH');
    expectProblem(await call('POST', '/relay-purchase', b, { body: await relayBody(b, parseUnits('51', 6), 1n) }), 409, 'INSUFFICIENT_PAYMENT_BALANCE');
    const forged = await call('POST', '/relay-purchase', b, { body: await relayBody(b, parseUnits('5', 6), 1n, { signer: privateKeyToAccount(generatePrivateKey()) }) });
    expectProblem(forged, 409, 'RELAY_REVERTED');
    const expired = await call('POST', '/relay-purchase', b, { body: await relayBody(b, parseUnits('5', 6), 1n, { deadline: 1 }) });
    expectProblem(expired, 409, 'RELAY_REVERTED');
    const inventory = await balanceOf(tokens(server).PM, saleAddress());
    const whale = await buyer(server, (inventory * price()) / 10n ** 18n + parseUnits('10', 6));
    expectProblem(await call('POST', '/relay-purchase', whale, { body: await relayBody(whale, (inventory * price()) / 10n ** 18n + parseUnits('1', 6), 1n) }), 409, 'SALE_INVENTORY_SHORT');
    await saleOwner('pause');
    try {
      expectProblem(await call('POST', '/relay-purchase', b, { body: await relayBody(b, parseUnits('5', 6), 1n) }), 409, 'SALE_PAUSED');
      expect((await call('GET', '/purchase-terms', null)).body.sale.state).toBe('paused');
    } finally {
      await saleOwner('unpause');
    }
    expect(await balanceOf(USDC, b.account.address)).toBe(before);
    expectProblem(await call('POST', '/relay-purchase', b, { body: { ...(await relayBody(b, parseUnits('5', 6), 1n)), extra: 1 } }), 400, 'INVALID_PAYLOAD');
  });
});

describe('card purchase', () => {
  async function checkout(b: Buyer, usd: number): Promise<CallResult> {
    return call('POST', '/checkout-session', b, { body: { usd } });
  }
  async function webhook(sessionId: string, type = 'checkout.session.completed'): Promise<CallResult> {
    const { payload, header } = stripe.webhookFor(sessionId, type);
    return server.call('POST', '/api/v1/economy/provider-webhook', { payload, headers: { 'content-type': 'application/json', 'stripe-signature': header }, unchecked: true });
  }

  it('delivers the bundle\'s PM once the provider reports payment, once however often it reports it', async () => {
    const b = await buyer(server, 0n);
    const pm = tokens(server).PM;
    const opened = await checkout(b, 25);
    expect(opened.status, opened.text).toBe(200);
    const sessionId = opened.body.sessionId as string;
    expect(sessionId).toMatch(/^cs_[A-Za-z0-9_]{8,240}$/);
    expect(opened.body).toMatchObject({ state: 'open', usd: 25, pmWei: pmForUsd(25, price()).toString(), walletAddress: b.account.address.toLowerCase(), provider: 'stripe', delivery: null });
    expect(stripe.sessions.get(sessionId)).toBeDefined();
    expect((await call('GET', `/purchase-status/${sessionId}`, b)).body.state).toBe('open');

    stripe.markPaid(sessionId);
    const first = await webhook(sessionId);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ received: true, outcome: 'paid' });
    expect((await webhook(sessionId)).body).toEqual({ received: true, outcome: 'unchanged' });
    await server.runtime.services.economy.deliverNow();
    const delivered = await waitFor(async () => {
      const s = await call('GET', `/purchase-status/${sessionId}`, b);
      return s.body.state === 'delivered' ? s : null;
    }, { what: 'the card purchase to be delivered' });
    expect(await balanceOf(pm, b.account.address)).toBe(pmForUsd(25, price()));
    const tx = await server.call('GET', delivered.body.delivery.statusUrl);
    expect(tx.body.state).toBe('CONFIRMED');
    // A late duplicate and another pass deliver nothing more.
    expect((await webhook(sessionId)).body.outcome).toBe('unchanged');
    await server.runtime.services.economy.deliverNow();
    expect(await balanceOf(pm, b.account.address)).toBe(pmForUsd(25, price()));
    // Another wallet cannot read it.
    const other = await buyer(server, 0n);
    expectProblem(await call('GET', `/purchase-status/${sessionId}`, other), 404, 'NOT_FOUND');
  });

  it('finds a payment whose webhook never came when the status is read', async () => {
    const b = await buyer(server, 0n);
    const { sessionId } = (await checkout(b, 5)).body;
    stripe.markPaid(sessionId);
    await waitFor(async () => (await call('GET', `/purchase-status/${sessionId}`, b)).body.state === 'delivered', { what: 'delivery after a status read' });
    expect(await balanceOf(tokens(server).PM, b.account.address)).toBe(pmForUsd(5, price()));
  });

  it('refuses an amount that is not a bundle, a forged webhook, and a wallet over the cap', async () => {
    const b = await buyer(server, 0n);
    const notBundle = await checkout(b, 7);
    expectProblem(notBundle, 400, 'PURCHASE_NOT_A_BUNDLE');
    expect(notBundle.body.bundlesUsd).toEqual([5, 10, 25, 50, 100]);
    expectProblem(await call('POST', '/checkout-session', b, { body: { usd: 5, extra: true } }), 400, 'INVALID_PAYLOAD');
    expectProblem(await call('POST', '/checkout-session', b, { body: { usd: 0 } }), 400, 'INVALID_PAYLOAD');

    const opened = await checkout(b, 50);
    expect(opened.status, opened.text).toBe(200);
    const { payload } = stripe.webhookFor(opened.body.sessionId);
    const forged = await server.call('POST', '/api/v1/economy/provider-webhook', { payload, headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=deadbeef' }, unchecked: true });
    expectProblem(forged, 400, 'INVALID_PAYLOAD');
    expect((await call('GET', `/purchase-status/${opened.body.sessionId}`, b)).body.state).toBe('open');

    // $50 open counts toward the $60 cap: $10 fits, then nothing more.
    expect((await checkout(b, 10)).status).toBe(200);
    const over = await checkout(b, 5);
    expectProblem(over, 429, 'PURCHASE_CAP_EXCEEDED');
    expect(over.body).toMatchObject({ capUsd: CAP_USD, spentUsd: 60, remainingUsd: 0 });
    // An expired session stops counting.
    stripe.expire(opened.body.sessionId);
    expect((await webhook(opened.body.sessionId, 'checkout.session.expired')).body.outcome).toBe('expired');
    expect((await checkout(b, 5)).status).toBe(200);
  });

  it('delivers a paid session whose webhook was lost once its expiry passes, and fails an order whose session never came', async () => {
    const b = await buyer(server, 0n);
    const { sessionId, orderId } = (await checkout(b, 5)).body;
    stripe.markPaid(sessionId);
    const db = server.runtime.database.db;
    // No webhook, no status read: the pass after the session's expiry asks the provider.
    await db.updateTable('card_purchases').set({ expires_at: new Date(Date.now() - 1000) }).where('order_id', '=', orderId).execute();
    // (The delivery loop may get there first: the outcome is what counts.)
    await server.runtime.services.economy.deliverNow();
    expect((await db.selectFrom('card_purchases').select('state').where('order_id', '=', orderId).executeTakeFirstOrThrow()).state).toBe('delivered');
    expect(await balanceOf(tokens(server).PM, b.account.address)).toBe(pmForUsd(5, price()));
    // An order left `creating` by a crash between the order and its session.
    const stuck = '00000000-0000-4000-8000-0000000000c1';
    await db
      .insertInto('card_purchases')
      .values({ order_id: stuck, session_id: null, provider: 'stripe', chain_id: server.config.chain.id, wallet_address: b.account.address.toLowerCase(), usd: 5, pm_amount: 1n, state: 'creating', checkout_url: null, created_at: new Date(Date.now() - 11 * 60_000), expires_at: new Date(Date.now() - 60_000) })
      .execute();
    await server.runtime.services.economy.deliverNow();
    expect((await db.selectFrom('card_purchases').select('state').where('order_id', '=', stuck).executeTakeFirstOrThrow()).state).toBe('failed');
  });

  it('answers 503 when the provider fails, and the failed order does not count toward the cap', async () => {
    const b = await buyer(server, 0n);
    stripe.failNext(500);
    const res = await checkout(b, 50);
    expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.body.reason).toBe('PROVIDER_UNAVAILABLE');
    expect((await checkout(b, 50)).status).toBe(200);
  });
});

describe('signup grant', () => {
  it('reads the play money the ledger credited the wallet when it was bound, and nothing for a wallet never bound', async () => {
    // No batch closes on its own meanwhile: the grant is committed only once the flush below is confirmed.
    const batcher = server.runtime.services.ledgerBatcher;
    await batcher.stop();
    const agent = await registerWallet(server);
    const b: Buyer = { account: agent.account, token: await session(server, agent.account) };
    const res = await call('GET', '/signup-grant', b);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ walletAddress: agent.account.address.toLowerCase(), granted: true, amount: server.config.ledger.signupGrant.toString(), decimals: 6, agentId: agent.agentId, currentGrant: server.config.ledger.signupGrant.toString() });
    expect(res.body.ledger.proofUrl).toBe(`/api/v1/ledger/proof/${agent.account.address.toLowerCase()}`);
    // Committed once the ledger batch holding the grant is confirmed on chain.
    expect(res.body.ledger.committed).toBe(false);
    await batcher.start();
    await batcher.flush({ force: true });
    expect((await call('GET', '/signup-grant', b)).body.ledger).toMatchObject({ seq: res.body.ledger.seq, committed: true });
    const stranger = await buyer(server, 0n);
    expect((await call('GET', '/signup-grant', stranger)).body).toMatchObject({ granted: false, amount: '0', agentId: null, grantedAt: null, ledger: null });
  });
});
