/**
 * The browser wallet in Chromium (docs/web.md "Trading"): an EIP-1193 provider injected into the page, backed by a viem
 * account funded on the test server's anvil, connects and signs in with SIWE, buys on an LMSR market (approval, trade,
 * each followed to CONFIRMED) and sees the position, places and cancels an order on an order-book market with the fill
 * allowance shown, and signs out. No key in the page; axe-core on every state; screenshots into test-results/web/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createWalletClient, http, toHex, type Address, type Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chainDefinition } from '../../src/chain/clients.ts';
import { WEB_DIST_DIR } from '../../src/api/http/web-app.ts';
import { newAccount, registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(import.meta.dirname, '..', '..', 'test-results', 'web');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

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

/** The wallet behind the injected provider: the trader's key stays in this process; the page only sends requests. */
async function walletRequest({ method, params }: { method: string; params?: unknown[] }): Promise<unknown> {
  asked.push(method);
  const chain = chainDefinition(server.config.chain.id, 'test', server.runtime.rpcUrl);
  switch (method) {
    case 'eth_requestAccounts':
    case 'eth_accounts':
      return [trader.address];
    case 'eth_chainId':
      return toHex(server.config.chain.id);
    case 'personal_sign':
      return trader.signMessage({ message: { raw: params![0] as Hex } });
    case 'eth_sendTransaction': {
      const tx = params![0] as { to: Address; data: Hex; value?: Hex };
      const wallet = createWalletClient({ chain, account: trader, transport: http(server.runtime.rpcUrl) });
      return wallet.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value ?? '0x0') });
    }
    default:
      throw Object.assign(new Error(`the test wallet does not do ${method}`), { code: 4200 });
  }
}

async function newPage(viewport = { width: 1280, height: 900 }): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  return page;
}

async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))`,
  )) as { id: string; impact: string | null; help: string; nodes: string[] }[];
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(blocking, `${name}: ${JSON.stringify(blocking, null, 1)}`).toEqual([]);
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

describe('the browser wallet in Chromium', () => {
  beforeAll(async () => {
    readFileSync(path.join(WEB_DIST_DIR, 'index.html')); // built by `npm run test:web` (pretest:web)
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet' } });
    const creator = await registerWallet(server, undefined, 'wallet-e2e-creator');
    await gas(server, creator.account.address);
    await fund(server, creator.account.address);
    lmsr = (await createMarket(server, creator.key, creator.account, { question: 'Will the browser wallet trade today?' })).market.address;
    book = (await createOrderBookMarket(server, creator, 'Will the browser wallet rest an order?', new Date(Date.now() + 30 * 86_400_000))).address;
    await gas(server, trader.address);
    await fund(server, trader.address);
    base = await server.runtime.listen();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    // The injected EIP-1193 provider (what a wallet extension puts in the page), answered by walletRequest above.
    await context.exposeFunction('__testWallet', walletRequest);
    await context.addInitScript({ content: 'window.ethereum = { request: (args) => window.__testWallet(args), on() {}, removeListener() {} };' });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });
  afterEach(() => {
    const seen = problems.splice(0);
    expect(seen, `CSP violations or script errors: ${seen.join(' | ')}`).toEqual([]);
  });

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
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow, 'no sideways scroll on a phone').toBeLessThanOrEqual(0);
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
