// What the browser suites (*.e2e.ts, docs/web.md "Tests") share: Debian's Chromium through playwright-core, pages whose
// CSP violations and script errors fail the test, axe-core in the page, screenshots into test-results/web/, and the
// injected EIP-1193 wallet whose key stays in the test process.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createWalletClient, http, toHex, type Address, type Hex, type TypedDataDefinition } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { chainDefinition } from '../../src/chain/clients.ts';
import { WEB_DIST_DIR } from '../../src/api/http/web-app.ts';
import { rpc } from '../support/anvil-rpc.ts';
import type { TestServer } from '../support/harness.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = path.join(import.meta.dirname, '..', '..', 'test-results', 'web');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Viewport {
  width: number;
  height: number;
}

/** Fails at once when the app is not built (`npm run test:web` builds it first: pretest:web); makes the screenshot folder. */
export function expectBuiltApp(): void {
  readFileSync(path.join(WEB_DIST_DIR, 'index.html'));
  mkdirSync(SHOTS, { recursive: true });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // A fresh profile each run: Playwright launches on a new temporary --user-data-dir of its own.
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export const newContext = (browser: Browser): Promise<BrowserContext> => browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });

/**
 * A page of `context` whose console errors (CSP violations among them) and script errors go into `problems`; failed
 * loads are left out, as the tests provoke refusals on purpose.
 */
export async function newPage(context: BrowserContext, problems: string[], viewport: Viewport = { width: 1280, height: 900 }): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  return page;
}

/** In afterEach: what the test's pages reported fails it (and is cleared for the next test). */
export function expectNoProblems(problems: string[]): void {
  const seen = problems.splice(0);
  expect(seen, `CSP violations or script errors: ${seen.join(' | ')}`).toEqual([]);
}

/** axe-core, run in the page (evaluated over the DevTools protocol, so the page's CSP stays as strict as it is). */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))`,
  )) as { id: string; impact: string | null; help: string; nodes: string[] }[];
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(blocking, `${name}: ${JSON.stringify(blocking, null, 1)}`).toEqual([]);
}

/** The page is no wider than its viewport; the message names the elements that stick out. */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const wide = await page.evaluate(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((e) => e.tagName + '.' + e.className + ':' + (e.getAttribute('data-testid') ?? '')).slice(0, 8).join(' | ')`);
  const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect(overflow, `no sideways scroll on a phone: ${wide}`).toBeLessThanOrEqual(0);
}

/** test-results/web/<name>.png, the whole page. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** 0x1234…abcd, as the app shortens an address. */
export const short = (address: string): string => `${address.slice(0, 6)}…${address.slice(-4)}`;

/** What the test wallet answers besides eth_requestAccounts, eth_accounts and eth_chainId. */
export type WalletMethod = 'personal_sign' | 'eth_signTypedData_v4' | 'eth_call' | 'eth_sendTransaction';
export interface WalletRequest {
  method: string;
  params?: unknown[];
}

/**
 * The wallet behind the injected provider: `account`'s key stays in this process; the page only sends requests. Each
 * method asked is appended to `asked`; one outside `answers` is refused with EIP-1193's 4200 (unsupported method).
 */
export function testWallet(server: TestServer, account: PrivateKeyAccount, o: { answers: readonly WalletMethod[]; asked: string[] }) {
  return async ({ method, params }: WalletRequest): Promise<unknown> => {
    o.asked.push(method);
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [account.address];
    if (method === 'eth_chainId') return toHex(server.config.chain.id);
    if (!(o.answers as readonly string[]).includes(method)) throw Object.assign(new Error(`the test wallet does not do ${method}`), { code: 4200 });
    switch (method as WalletMethod) {
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
        const chain = chainDefinition(server.config.chain.id, 'test', server.runtime.rpcUrl);
        const wallet = createWalletClient({ chain, account, transport: http(server.runtime.rpcUrl) });
        return wallet.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value ?? '0x0') });
      }
    }
  };
}

const PROVIDER = 'window.ethereum = { request: (args) => window.__testWallet(args), on() {}, removeListener() {} };';
/** This provider keeps its listeners, so a test can play the wallet switching accounts. */
const LISTENING_PROVIDER =
  'window.ethereum = { listeners: {}, request: (args) => window.__testWallet(args), on(e, f) { (this.listeners[e] ??= []).push(f); }, removeListener() {} };';

/** A browser context whose pages have an injected EIP-1193 provider (what a wallet extension puts in the page) answered by `request`. */
export async function walletContext(browser: Browser, request: (args: WalletRequest) => Promise<unknown>, o: { keepListeners?: boolean } = {}): Promise<BrowserContext> {
  const context = await newContext(browser);
  await context.exposeFunction('__testWallet', request);
  await context.addInitScript({ content: o.keepListeners ? LISTENING_PROVIDER : PROVIDER });
  return context;
}
