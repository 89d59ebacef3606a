/**
 * The browser wallet in Chromium (docs/web.md "Trading"): an EIP-1193 provider injected into the page, backed by a viem
 * account funded on the test server's anvil, connects and signs in with SIWE, buys on an LMSR market (approval, trade,
 * each followed to CONFIRMED) and sees the position, places and cancels an order on an order-book market with the fill
 * allowance shown, and signs out. No key in the page; axe-core on every state; screenshots into test-results/web/.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import type { Address } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';
import { expectAccessible, expectBuiltApp, expectNoProblems, expectNoSidewaysScroll, launchChromium, newPage as openPage, short, shot, testWallet, walletContext, type Viewport } from './browser.ts';

let server: TestServer;
let base: string;
let browser: Browser;
let context: BrowserContext;
let lmsr: Address;
let book: string;
const trader = newAccount();
const problems: string[] = [];
/** Every EIP-1193 method the page asked the wallet for, in order. */
const asked: string[] = [];

const newPage = (viewport?: Viewport) => openPage(context, problems, viewport);

describe('the browser wallet in Chromium', () => {
  beforeAll(async () => {
    expectBuiltApp();
    server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet' } });
    const creator = await registerWallet(server, undefined, 'wallet-e2e-creator');
    await gas(server, creator.account.address);
    await fund(server, creator.account.address);
    lmsr = (await createMarket(server, creator.key, creator.account, { question: 'Will the browser wallet trade today?' })).market.address;
    book = (await createOrderBookMarket(server, creator, 'Will the browser wallet rest an order?', new Date(Date.now() + 30 * 86_400_000))).address;
    await gas(server, trader.address);
    await fund(server, trader.address);
    base = await server.runtime.listen();
    browser = await launchChromium();
    context = await walletContext(browser, testWallet(server, trader, { answers: ['personal_sign', 'eth_sendTransaction'], asked }));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });
  afterEach(() => expectNoProblems(problems));

  it('connects, signs in with Ethereum, buys on an LMSR market through the approval, and shows the position', async () => {
    const page = await newPage();
    await page.goto(`${base}/markets/${lmsr}`);
    const panel = page.getByTestId('trade-panel');
    await expect.poll(() => panel.textContent()).toContain('sign in to trade');
    await expectAccessible(page, 'trade panel, signed out');
    await page.locator('header').getByTestId('wallet-connect').click();
    await expect.poll(() => page.getByTestId('wallet-address').textContent()).toBe(short(trader.address.toLowerCase()));
    expect(asked).toContain('personal_sign');

    await page.getByTestId('trade-shares').fill('10');
    await expect.poll(() => page.getByTestId('quote-amount').textContent(), { timeout: 10_000 }).toMatch(/USDC$/);
    await page.getByTestId('trade-submit').click();
    await expect.poll(() => page.getByTestId('trade-step').textContent(), { timeout: 30_000 }).toBe('Done: the trade is confirmed.');
    // One approval and one trade, both sent from the wallet.
    expect(asked.filter((m) => m === 'eth_sendTransaction')).toHaveLength(2);
    await expect.poll(() => page.getByTestId('position-shares').textContent(), { timeout: 30_000 }).toBe('10 shares');
    await expectAccessible(page, 'trade panel, after a trade');
    await shot(page, 'wallet-lmsr-trade');

    // A refusal is words from its code: selling more than the wallet holds.
    await page.getByTestId('side-sell').click();
    await page.getByTestId('trade-shares').fill('1000');
    await page.getByTestId('trade-submit').click();
    await expect.poll(() => panel.getByRole('alert').last().textContent(), { timeout: 10_000 }).toMatch(/does not hold enough|refuses this trade/);
  });

  it('places an order on an order book with the fill allowance shown, lists it and cancels it; fits a phone', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await page.goto(`${base}/markets/${book}`);
    // Signed in already: the session cookie is the context's.
    await expect.poll(() => page.getByTestId('wallet-address').textContent()).toBe(short(trader.address.toLowerCase()));
    await expect.poll(() => page.getByTestId('fill-allowance').textContent()).toMatch(/fills left this month|not counted/);
    await expect.poll(() => page.getByTestId('trade-panel').textContent()).toContain('You have no open orders');
    await page.getByTestId('order-price').fill('0.40');
    await page.getByTestId('order-shares').fill('2');
    await page.getByTestId('order-submit').click();
    await expect.poll(() => page.getByTestId('order-placed').textContent()).toBe('Your order is on the book.');
    await expect.poll(() => page.getByTestId('open-order').count()).toBe(1);
    expect(await page.getByTestId('open-order').textContent()).toContain('40%');
    await expectNoSidewaysScroll(page);
    await expectAccessible(page, 'order form with an open order');
    await shot(page, 'wallet-orderbook-phone');

    await page.getByTestId('order-cancel').click();
    await expect.poll(() => page.getByTestId('open-order').count()).toBe(0);
    await expect.poll(() => page.getByTestId('trade-panel').textContent()).toContain('You have no open orders');
    const orders = await server.runtime.database.db.selectFrom('orders').select(['status']).execute();
    expect(orders.map((o) => o.status)).toEqual(['cancelled']);
  });

  it('signs out: the session ends and the panel asks to sign in again', async () => {
    const page = await newPage();
    await page.goto(`${base}/markets/${book}`);
    await page.getByTestId('wallet-signout').click();
    await expect.poll(() => page.locator('header').getByTestId('wallet-connect').count()).toBe(1);
    await expect.poll(() => page.getByTestId('trade-panel').textContent()).toContain('sign in to trade');
    const session = await page.evaluate(() => fetch('/api/auth/session').then((r) => r.status));
    expect(session).toBe(401);
    await shot(page, 'wallet-signed-out');
  });
});
