/**
 * The portfolio and the resolution actions in Chromium (docs/web.md "Pages"): an EIP-1193 provider injected into the
 * page, backed by a viem account on the test server's anvil, that created a market, buys on it in the trade panel,
 * proposes its outcome (EIP-712, relayed) and finalizes it after the challenge window (moved on with evm_increaseTime),
 * then on /portfolio claims the payout with one click, collects its creator funds, and sees its play-money balance
 * checked in the browser against ledgerRoot() read through the wallet (eth_call). No key in the page; axe-core on every
 * state; screenshots into test-results/web/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createWalletClient, erc20Abi, http, toHex, type Address, type Hex, type TypedDataDefinition } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chainDefinition } from '../../src/chain/clients.ts';
import { WEB_DIST_DIR } from '../../src/api/http/web-app.ts';
import { newAccount, registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { resolverTx } from '../support/claims.ts';
import { createMarket, fund, gas, sendTx } from '../support/markets.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(import.meta.dirname, '..', '..', 'test-results', 'web');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

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

/** The wallet behind the injected provider: the key stays in this process; the page only sends requests. */
async function walletRequest(account: PrivateKeyAccount, { method, params }: { method: string; params?: unknown[] }): Promise<unknown> {
  asked.push(method);
  const chain = chainDefinition(server.config.chain.id, 'test', server.runtime.rpcUrl);
  switch (method) {
    case 'eth_requestAccounts':
    case 'eth_accounts':
      return [account.address];
    case 'eth_chainId':
      return toHex(server.config.chain.id);
    case 'personal_sign':
      return account.signMessage({ message: { raw: params![0] as Hex } });
    case 'eth_signTypedData_v4': {
      const { types, ...rest } = JSON.parse(params![1] as string) as TypedDataDefinition & { types: Record<string, unknown> };
      delete types.EIP712Domain;
      return account.signTypedData({ ...rest, types } as TypedDataDefinition);
    }
    case 'eth_call':
      // A wallet answers reads from its own node: here the test anvil.
      return rpc(server.runtime.rpcUrl, 'eth_call', params!);
    case 'eth_sendTransaction': {
      const tx = params![0] as { to: Address; data: Hex; value?: Hex };
      const wallet = createWalletClient({ chain, account, transport: http(server.runtime.rpcUrl) });
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

/** A browser context whose page has an injected EIP-1193 provider answered by `account`. */
async function walletContext(account: PrivateKeyAccount): Promise<BrowserContext> {
  const ctx = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
  await ctx.exposeFunction('__testWallet', (args: { method: string; params?: unknown[] }) => walletRequest(account, args));
  await ctx.addInitScript({ content: 'window.ethereum = { request: (args) => window.__testWallet(args), on() {}, removeListener() {} };' });
  return ctx;
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const sync = () => server.runtime.services.indexer.syncNow();
const phaseOf = async (of: string = market) => (await server.call('GET', `/api/agent/v1/markets/${of}/resolution`)).body.phase as string | null;

describe('the portfolio and the resolution actions in Chromium', () => {
  beforeAll(async () => {
    readFileSync(path.join(WEB_DIST_DIR, 'index.html')); // built by `npm run test:web` (pretest:web)
    mkdirSync(SHOTS, { recursive: true });
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
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    context = await walletContext(creator);
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
    await expect.poll(() => page.getByTestId('proof-check').getAttribute('data-status'), { timeout: 10_000 }).toBe('verified');
    expect(asked).toContain('eth_call');
    expect(await page.getByTestId('ledger-balance').count()).toBeGreaterThan(0);
    await expectAccessible(page, 'portfolio with a payout');
    await shot(page, 'portfolio-phone');
    const wide = await page.evaluate(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((e) => e.tagName + '.' + e.className + ':' + (e.getAttribute('data-testid') ?? '')).slice(0, 8).join(' | ')`);
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow, `no sideways scroll on a phone: ${wide}`).toBeLessThanOrEqual(0);

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
    const ctx = await walletContext(challenger);
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
    const bare = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
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
