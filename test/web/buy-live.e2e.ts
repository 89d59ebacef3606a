/**
 * Buy PM and live updates in Chromium (docs/web.md "Buying PM", "Live updates"): an EIP-1193 provider injected into
 * the page, backed by a viem account on the test server's anvil, buys PM by USDC permit (no gas) and sees its balance;
 * a card checkout goes to the local stand-in of the payment provider and the status page shows the delivery; a trade
 * another client makes shows on an open market page without a reload; a malformed market URL shows words. No key in
 * the page; axe-core on every state; screenshots into test-results/web/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { parseUnits, type Address } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, registerWallet } from '../support/agents.ts';
import { buyShares, funded } from '../support/claims.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas } from '../support/markets.ts';
import { startStripeServer } from '../support/stripe-server.ts';
import { expectAccessible, expectBuiltApp, expectNoProblems, expectNoSidewaysScroll, launchChromium, newPage as openPage, short, shot, testWallet, walletContext, type Viewport } from './browser.ts';

let stripe: Awaited<ReturnType<typeof startStripeServer>>;
let server: TestServer;
let base: string;
let browser: Browser;
let context: BrowserContext;
let lmsr: Address;
const buyer = newAccount();
const problems: string[] = [];
const asked: string[] = [];

/** The buyer's wallet: it signs (the permit too) and reads from the test anvil; it sends no transaction. */
const buyerWallet = () => testWallet(server, buyer, { answers: ['personal_sign', 'eth_signTypedData_v4', 'eth_call'], asked });
const newPage = (viewport?: Viewport) => openPage(context, problems, viewport);

async function signIn(page: Page): Promise<void> {
  await page.locator('header').getByTestId('wallet-connect').click();
  await expect.poll(() => page.getByTestId('wallet-address').textContent()).toBe(short(buyer.address.toLowerCase()));
}

describe('buy PM and live updates in Chromium', () => {
  beforeAll(async () => {
    expectBuiltApp();
    stripe = await startStripeServer();
    server = await startTestServer({
      env: { REGISTRATION_PATHS: 'wallet', STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_BASE: stripe.url },
    });
    const creator = await registerWallet(server, undefined, 'buy-live-creator');
    await gas(server, creator.account.address);
    await fund(server, creator.account.address);
    lmsr = (await createMarket(server, creator.key, creator.account, { question: 'Will the market page update by itself?' })).market.address;
    await gas(server, buyer.address);
    await fund(server, buyer.address, { usdc: parseUnits('50', 6), pm: 0n });
    base = await server.runtime.listen();
    browser = await launchChromium();
    // A provider that keeps its listeners, so a test can play the wallet switching accounts.
    context = await walletContext(browser, buyerWallet(), { keepListeners: true });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await stripe?.close();
  });
  afterEach(() => expectNoProblems(problems));

  it('buys PM with USDC by a permit signed in the wallet, no gas, and shows the new balance', async () => {
    const page = await newPage();
    await page.goto(`${base}/buy`);
    await expect.poll(() => page.getByTestId('buy-price').textContent()).toContain('PM for one US dollar');
    await expectAccessible(page, 'buy, signed out');
    await signIn(page);
    await expect.poll(() => page.getByTestId('pm-balance').textContent()).toBe('0 PM');
    await page.getByTestId('relay-amount').fill('2.5');
    await expect.poll(() => page.getByTestId('relay-quote').textContent()).toBe('You get 250 PM.');
    await page.getByTestId('relay-submit').click();
    await expect.poll(() => page.getByTestId('relay-step').textContent(), { timeout: 30_000 }).toBe('Done: you bought 250 PM.');
    await expect.poll(() => page.getByTestId('pm-balance').textContent()).toBe('250 PM');
    // Signed in the wallet, sent by the server: the wallet sent no transaction.
    expect(asked).toContain('eth_signTypedData_v4');
    expect(asked).not.toContain('eth_sendTransaction');
    await expectAccessible(page, 'buy, after a relay purchase');
    await shot(page, 'buy-relay');

    // A refusal in words: more USDC than the wallet holds.
    await page.getByTestId('relay-amount').fill('500');
    await page.getByTestId('relay-submit').click();
    await expect.poll(() => page.getByTestId('buy-relay').getByRole('alert').textContent(), { timeout: 10_000 }).toBe('Your wallet does not hold enough USDC for this.');
  });

  it('sends a card checkout to the payment provider, and the status page shows the purchase delivered', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await page.goto(`${base}/buy`);
    await expect.poll(() => page.getByTestId('wallet-address').textContent()).toBe(short(buyer.address.toLowerCase()));
    await page.getByTestId('bundle-10').click();
    await page.getByTestId('card-pay').click();
    // The provider's hosted page (the local stand-in): the session it opened for this wallet's order.
    await expect.poll(() => page.url(), { timeout: 10_000 }).toMatch(new RegExp(`^${stripe.url}/c/pay/cs_`));
    const sessionId = /\/c\/pay\/(cs_[A-Za-z0-9_]+)$/.exec(page.url())![1]!;
    expect(stripe.sessions.get(sessionId)?.amount_total).toBe(1000);
    expect(stripe.sessions.get(sessionId)?.success_url).toBe(`${server.config.publicBaseUrl}/buy?purchase={CHECKOUT_SESSION_ID}`);

    stripe.markPaid(sessionId);
    await page.goto(`${base}/buy?purchase=${sessionId}`);
    await expect.poll(() => page.getByTestId('purchase-state').textContent(), { timeout: 30_000 }).toBe('Delivered: the PM is in your wallet.');
    await expect.poll(() => page.getByTestId('purchase-status').textContent()).toContain('1,000 PM');
    // The balance is read again once delivered: the relay's 250 and the card's 1,000.
    await expect.poll(() => page.getByTestId('pm-balance').textContent(), { timeout: 10_000 }).toBe('1,250 PM');
    await expectNoSidewaysScroll(page);
    await expectAccessible(page, 'buy, card purchase delivered');
    await shot(page, 'buy-card-status');
  });

  it('says so instead of offering the card where no provider is configured', async () => {
    const bare = await startTestServer();
    // A context of its own: cookies are per host, not per port, and this server's would replace the other's.
    const own = await walletContext(browser, buyerWallet());
    try {
      const bareBase = await bare.runtime.listen();
      const page = await own.newPage();
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      await page.goto(`${bareBase}/buy`);
      await page.locator('header').getByTestId('wallet-connect').click();
      await expect.poll(() => page.getByTestId('card-unavailable').textContent(), { timeout: 10_000 }).toBe('Card payments are not set up on this server. You can buy with USDC below.');
      expect(await page.getByTestId('card-pay').count()).toBe(0);
      await expectAccessible(page, 'buy, no card provider');
    } finally {
      await own.close();
      await bare.close();
    }
  });

  it('shows a trade another client made on an open market page, without a reload', async () => {
    const page = await newPage();
    await page.goto(`${base}/markets/${lmsr}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Will the market page update by itself?');
    await expect.poll(() => page.getByText('No trades yet').count()).toBeGreaterThan(0);
    const before = await page.locator('.outcome-list').textContent();
    // The signed-in buyer's quote for 10 shares, left alone: it is asked again every recommendedRefreshMs.
    await page.getByTestId('trade-shares').fill('10');
    await expect.poll(() => page.getByTestId('quote-amount').textContent(), { timeout: 10_000 }).toMatch(/USDC$/);
    const quoted = await page.getByTestId('quote-amount').textContent();
    // A mark in the page's memory: a reload would clear it.
    await page.evaluate('window.__beforeTrade = true');

    const other = await funded(server, 'buy-live-trader');
    await buyShares(server, other, lmsr, 0, parseUnits('50', 6));
    await server.runtime.services.indexer.syncNow();
    await expect.poll(() => page.getByTestId('trades-table').locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(async () => (await page.getByTestId('trades-table').textContent())?.toLowerCase()).toContain(short(other.account.address.toLowerCase()));
    await expect.poll(() => page.locator('.outcome-list').textContent()).not.toBe(before);
    expect(await page.evaluate('window.__beforeTrade === true')).toBe(true);
    // The other client bought the same outcome: the idle form's quote follows without a keystroke.
    await expect.poll(() => page.getByTestId('quote-amount').textContent(), { timeout: 15_000 }).not.toBe(quoted);
    await expectAccessible(page, 'market, after a live trade');
    await shot(page, 'market-live-trade');
  });

  it('signs out when the wallet switches to another account', async () => {
    const page = await newPage();
    await page.goto(`${base}/buy`);
    await expect.poll(() => page.getByTestId('wallet-address').textContent()).toBe(short(buyer.address.toLowerCase()));
    await page.evaluate(`window.ethereum.listeners.accountsChanged.forEach((f) => f(['${newAccount().address}']))`);
    await expect.poll(() => page.locator('header').getByTestId('wallet-connect').count()).toBe(1);
    // The session was ended on the server too, not only forgotten by the page.
    expect((await page.request.get(`${base}/api/auth/session`)).status()).toBe(401);
  });

  it('shows words for a malformed market URL instead of crashing', async () => {
    // The server refuses a malformed escape in the address bar itself (400); inside the app, a link can still lead there.
    const page = await newPage();
    await page.goto(`${base}/`);
    await expect.poll(() => page.getByTestId('market-list').count()).toBe(1);
    await page.evaluate(`history.pushState(null, '', '/markets/%E0%A4%A'); dispatchEvent(new PopStateEvent('popstate'));`);
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 10_000 }).toMatch(/This (market does not exist|link is malformed)/);
    await expectAccessible(page, 'market, malformed URL');
  });
});
