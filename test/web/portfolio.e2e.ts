/**
 * The portfolio and the resolution actions in Chromium (docs/web.md "Pages"): an EIP-1193 provider injected into the
 * page, backed by a viem account on the test server's anvil, that created a market, buys on it in the trade panel,
 * proposes its outcome (EIP-712, relayed) and finalizes it after the challenge window (moved on with evm_increaseTime),
 * then on /portfolio claims the payout with one click, collects its creator funds, and sees its play-money balance
 * checked in the browser against ledgerRoot() read through the wallet (eth_call). No key in the page; axe-core on every
 * state; screenshots into test-results/web/.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { erc20Abi, type Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { resolverTx } from '../support/claims.ts';
import { createMarket, fund, gas, sendTx } from '../support/markets.ts';
import { expectAccessible, expectBuiltApp, expectNoProblems, expectNoSidewaysScroll, launchChromium, newContext, newPage as openPage, shot, testWallet, walletContext, type Viewport } from './browser.ts';

let server: TestServer;
let base: string;
let browser: Browser;
let context: BrowserContext;
let market: Address;
let collateral: Address;
let creatorKey: string;
const creator = newAccount();
const problems: string[] = [];
/** Every EIP-1193 method the page asked the wallet for, in order. */
const asked: string[] = [];

const newPage = (viewport?: Viewport) => openPage(context, problems, viewport);
/** A browser context whose page has an injected EIP-1193 provider answered by `account`. */
const contextFor = (account: PrivateKeyAccount) => walletContext(browser, testWallet(server, account, { answers: ['personal_sign', 'eth_signTypedData_v4', 'eth_call', 'eth_sendTransaction'], asked }));
const sync = () => server.runtime.services.indexer.syncNow();
const phaseOf = async (of: string = market) => (await server.call('GET', `/api/agent/v1/markets/${of}/resolution`)).body.phase as string | null;

describe('the portfolio and the resolution actions in Chromium', () => {
  beforeAll(async () => {
    expectBuiltApp();
    // The keeper would finalize on its own (once a minute here); the wallet does it from the page first.
    server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', MARKET_SCHEDULER_MS: '60000' } });
    const agent = await registerWallet(server, creator, 'portfolio-e2e-creator');
    creatorKey = agent.key;
    await gas(server, creator.address);
    await fund(server, creator.address);
    const created = await createMarket(server, agent.key, creator, { question: 'Will the portfolio page pay out?' });
    market = created.market.address;
    collateral = created.market.collateral.token;
    await sync();
    base = await server.runtime.listen();
    browser = await launchChromium();
    context = await contextFor(creator);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });
  afterEach(() => expectNoProblems(problems));

  it('trades, proposes as the creator, and finalizes after the challenge window, each step confirmed on chain', async () => {
    const page = await newPage();
    await page.goto(`${base}/markets/${market}`);
    await page.locator('header').getByTestId('wallet-connect').click();
    await expect.poll(() => page.getByTestId('wallet-address').count()).toBe(1);
    await page.getByTestId('trade-shares').fill('10');
    await expect.poll(() => page.getByTestId('quote-amount').textContent(), { timeout: 10_000 }).toMatch(/USDC$/);
    await page.getByTestId('trade-submit').click();
    await expect.poll(() => page.getByTestId('trade-step').textContent(), { timeout: 30_000 }).toBe('Done: the trade is confirmed.');

    // The creator's step: propose the first outcome (the one bought), signed as EIP-712 and relayed.
    const actions = page.getByTestId('resolution-actions');
    await expect.poll(() => actions.textContent()).toContain('You created this market');
    await expectAccessible(page, 'resolution actions, propose');
    await shot(page, 'resolution-propose');
    await page.getByTestId('resolve-propose').click();
    await expect.poll(() => page.getByTestId('resolve-step').textContent(), { timeout: 30_000 }).toBe('Done: confirmed on chain.');
    expect(asked).toContain('eth_signTypedData_v4');
    await sync();
    await expect.poll(phaseOf).toBe('proposed');

    // The challenge window (2 h on a local chain) passes on the chain's clock; then anyone may finalize.
    await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [7_201]);
    await rpc(server.runtime.rpcUrl, 'evm_mine');
    await page.reload();
    await expect.poll(() => page.getByTestId('resolve-finalize').count(), { timeout: 10_000 }).toBe(1);
    await expectAccessible(page, 'resolution actions, finalize');
    await page.getByTestId('resolve-finalize').click();
    await expect.poll(() => page.getByTestId('resolve-step').textContent(), { timeout: 30_000 }).toBe('Done: confirmed on chain.');
    await sync();
    await expect.poll(phaseOf).toBe('resolved');
    await page.reload();
    await expect.poll(() => page.getByTestId('resolution').locator('[data-step="final"]').getAttribute('data-status'), { timeout: 10_000 }).toBe('done');
    expect(await page.getByTestId('resolution-actions').count()).toBe(0); // nothing left for this wallet to do
  });

  it('claims the payout with one click, collects the creator funds, and checks the ledger proof against the chain', async () => {
    await server.runtime.services.ledgerBatcher.flush({ force: true });
    const page = await newPage({ width: 390, height: 844 });
    await page.goto(`${base}/portfolio`);
    await expect.poll(() => page.getByTestId('portfolio-wallet').textContent()).toBe(creator.address.toLowerCase());
    await expect.poll(() => page.getByTestId('payout-amount').textContent(), { timeout: 10_000 }).toBe('10 USDC');
    // The shares bought in the trade panel, still held until claimed (GET /portfolio/positions).
    await expect.poll(() => page.getByTestId('position-shares').textContent()).toBe('Yes · 10 shares');
    await expect.poll(() => page.getByTestId('proof-check').getAttribute('data-status'), { timeout: 10_000 }).toBe('verified');
    expect(asked).toContain('eth_call');
    expect(await page.getByTestId('ledger-balance').count()).toBeGreaterThan(0);
    await expectAccessible(page, 'portfolio with a payout');
    await shot(page, 'portfolio-phone');
    await expectNoSidewaysScroll(page);

    const balance = () => server.runtime.services.chain.client.readContract({ address: collateral, abi: erc20Abi, functionName: 'balanceOf', args: [creator.address] });
    const before = await balance();
    await page.getByTestId('claim').click();
    await expect.poll(() => page.getByTestId('claim-result').textContent(), { timeout: 30_000 }).toContain('Claimed: 10 USDC sent to your wallet.');
    expect((await balance()) - before).toBe(10_000_000n);
    await expect.poll(() => page.getByTestId('payout').count()).toBe(0);

    // The creator's fees and bond: collected by the protocol, paid to this wallet.
    await expect.poll(() => page.getByTestId('collect').count(), { timeout: 10_000 }).toBe(1);
    await page.getByTestId('collect').click();
    await expect.poll(() => page.getByTestId('collected').textContent(), { timeout: 30_000 }).toMatch(/^Collected from 1 market/);
    await expect.poll(() => page.getByTestId('creator-market').textContent()).toContain('(returned)');
    expect(await page.getByTestId('collect').count()).toBe(0);
    await expectAccessible(page, 'portfolio after claim and collect');
    await shot(page, 'portfolio-claimed');
  });

  it("challenges the creator's proposal from another wallet: the bond's approval and the challenge, each confirmed", async () => {
    const other = (await createMarket(server, creatorKey, creator, { question: 'Will the challenge from the page stand?' })).market.address as Address;
    await sendTx(server, creator, resolverTx(server, 'propose', [other, 1]));
    await sync();
    await expect.poll(() => phaseOf(other)).toBe('proposed');
    const challenger = newAccount();
    await gas(server, challenger.address);
    await fund(server, challenger.address);
    const ctx = await contextFor(challenger);
    try {
      const page = await ctx.newPage();
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      await page.goto(`${base}/markets/${other}`);
      await page.locator('header').getByTestId('wallet-connect').click();
      await expect.poll(() => page.getByTestId('resolution-actions').textContent(), { timeout: 10_000 }).toContain('The creator proposed');
      expect(await page.getByTestId('resolve-outcome').inputValue()).toBe('2'); // the proposed outcome is not offered
      await expectAccessible(page, 'resolution actions, challenge');
      await shot(page, 'resolution-challenge');
      const sent = asked.filter((m) => m === 'eth_sendTransaction').length;
      await page.getByTestId('resolve-challenge').click();
      await expect.poll(() => page.getByTestId('resolve-step').textContent(), { timeout: 30_000 }).toBe('Done: confirmed on chain.');
      expect(asked.filter((m) => m === 'eth_sendTransaction').length - sent).toBe(2); // approve the bond, then challenge
      await sync();
      await expect.poll(() => phaseOf(other)).toBe('disputed');
      const challenge = (await server.call('GET', `/api/agent/v1/markets/${other}/resolution`)).body.challenge;
      expect(challenge).toMatchObject({ challenger: challenger.address.toLowerCase(), counterOutcome: 2 });
    } finally {
      await ctx.close();
    }
  });

  it('says so when the proof cannot be checked: no wallet in the page', async () => {
    const bare = await newContext(browser);
    try {
      // Same session (the cookie of the signed-in context), but no injected provider.
      await bare.addCookies(await context.cookies());
      const page = await bare.newPage();
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      await page.goto(`${base}/portfolio`);
      await expect.poll(() => page.getByTestId('proof-check').getAttribute('data-status'), { timeout: 10_000 }).toBe('noWallet');
      expect(await page.getByTestId('proof-check').textContent()).toContain('No browser wallet');
    } finally {
      await bare.close();
    }
  });
});
