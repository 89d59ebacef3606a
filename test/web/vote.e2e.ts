/**
 * The human vote on the market page in Chromium (docs/web.md "Pages", "Resolution actions"): a verified human's wallet,
 * an EIP-1193 provider injected into the page, signs in, signs its ballot (EIP-712) and casts it through its session;
 * the published session lists it. An unverified wallet is told in words that only a verified human may vote. No key in
 * the page; axe-core on the vote form; a screenshot into test-results/web/.
 */
import type { Browser } from 'playwright-core';
import type { Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { votingMarket } from '../support/votes.ts';
import { expectAccessible, expectBuiltApp, expectNoProblems, launchChromium, newPage, shot, testWallet, walletContext } from './browser.ts';

let server: TestServer;
let base: string;
let browser: Browser;
let market: Address;
let sessionId: string;
const problems: string[] = [];
const asked: string[] = [];

/** A page of a context whose wallet is `account`, on the market, signed in from the header. */
async function signedInOnMarket(account: PrivateKeyAccount) {
  const context = await walletContext(browser, testWallet(server, account, { answers: ['personal_sign', 'eth_signTypedData_v4'], asked }));
  const page = await newPage(context, problems);
  await page.goto(`${base}/markets/${market}`);
  await page.locator('header').getByTestId('wallet-connect').click();
  await expect.poll(() => page.getByTestId('wallet-address').count()).toBe(1);
  return { context, page };
}

describe('the human vote on the market page in Chromium', () => {
  beforeAll(async () => {
    expectBuiltApp();
    server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', MARKET_SCHEDULER_MS: '60000' } });
    ({ market, sessionId } = await votingMarket(server, 'vote-e2e-creator', { question: 'Will the vote from the page count?' }));
    base = await server.runtime.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  afterEach(() => expectNoProblems(problems));

  it("casts a verified human's ballot, signed in the wallet, and the published session lists it", async () => {
    const voter = newAccount();
    await server.runtime.services.humans.attest(voter.address, 'test');
    const { context, page } = await signedInOnMarket(voter);
    try {
      await expect.poll(() => page.getByTestId('vote-cast').count(), { timeout: 10_000 }).toBe(1);
      await page.getByTestId('vote-outcome').selectOption('2');
      await expectAccessible(page, 'resolution actions, vote');
      await shot(page, 'resolution-vote');
      await page.getByTestId('vote-cast').click();
      await expect.poll(() => page.getByTestId('vote-step').textContent(), { timeout: 15_000 }).toBe('Your ballot is cast and published.');
      expect(asked).toContain('eth_signTypedData_v4');
      const published = (await server.call('GET', `/api/agent/v1/resolution/votes/${sessionId}`)).body;
      expect(published.ballots).toContainEqual(expect.objectContaining({ wallet: voter.address.toLowerCase(), outcome: 2 }));
    } finally {
      await context.close();
    }
  });

  it('tells an unverified wallet that only a verified human may vote', async () => {
    const { context, page } = await signedInOnMarket(newAccount());
    try {
      await expect.poll(() => page.getByTestId('vote-cast').count(), { timeout: 10_000 }).toBe(1);
      await page.getByTestId('vote-cast').click();
      await expect.poll(() => page.getByTestId('resolution-actions').textContent(), { timeout: 15_000 }).toContain('Only a verified human may vote');
    } finally {
      await context.close();
    }
  });
});
