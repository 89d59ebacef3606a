/**
 * The web app's read pages in a real browser (docs/web.md "Tests"): discover in three locales, a wallet's profile,
 * and a market's holders, comments, related markets and resolution timeline. The habits of web.e2e.ts: Debian's
 * Chromium through playwright-core, a real embedded svc with seeded rows, no key anywhere, axe-core on every page,
 * CSP violations and script errors fail the test, screenshots into test-results/web/. `npm run test:web`.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { epochDay } from '../../src/core/leaderboard/boards.ts';
import { resolutionRecordToJson, type ResolutionRecord } from '../../src/core/resolution/record.ts';
import type { MarketRow } from '../../src/services/markets/records.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { randomAddress, seedComment, seedMarket, seedPosition, seedTrade, USDC, WAD } from '../support/market-rows.ts';
import { expectAccessible, expectBuiltApp, expectNoProblems, expectNoSidewaysScroll, launchChromium, newContext, newPage as openPage, short, shot, type Viewport } from './browser.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let server: TestServer;
let base: string;
let browser: Browser;
let context: BrowserContext;
let eth: MarketRow;
let disputed: MarketRow;
const creator = randomAddress();
const trader = randomAddress();
const holder = randomAddress();
const challenger = randomAddress();
const problems: string[] = [];

async function seed(): Promise<void> {
  const now = server.runtime.clock.now();
  const db = server.runtime.database.db;
  eth = await seedMarket(server, { question: 'Will ETH close above $5,000 this quarter?', category: 'CRYPTO', creator, createdAt: new Date(now.getTime() - 3 * HOUR) });
  await seedMarket(server, { question: 'Will BTC trade above $150,000 by June?', category: 'CRYPTO', creator, createdAt: new Date(now.getTime() - 2 * HOUR) });
  await seedMarket(server, { question: 'Who wins the city derby?', category: 'SPORTS', outcomes: ['Home', 'Away', 'Draw'], createdAt: new Date(now.getTime() - HOUR) });
  for (const [i, p] of [52n, 58n, 61n].entries()) {
    await seedTrade(server, eth, { trader, outcome: 0, shares: 100n * USDC, pricesAfter: [(WAD * p) / 100n, (WAD * (100n - p)) / 100n], at: new Date(now.getTime() - (3 - i) * 30 * 60_000) });
  }
  await seedPosition(db, eth, trader, 0, 300n * USDC);
  await seedPosition(db, eth, holder, 1, 120n * USDC);
  await seedComment(db, eth, trader, 'Rate cuts are priced in; I bought Yes.', new Date(now.getTime() - 20 * 60_000));
  await seedComment(db, eth, holder, 'Too optimistic, No is cheap.', new Date(now.getTime() - 10 * 60_000));

  // A market whose proposal was challenged (the resolver's record as the indexer keeps it).
  disputed = await seedMarket(server, { question: 'Did the council pass the budget?', category: 'POLITICS', state: 'challenge', creator, createdAt: new Date(now.getTime() - 5 * DAY), closeTime: new Date(now.getTime() - 2 * DAY) });
  const record: ResolutionRecord = {
    phase: 'disputed',
    proposedOutcome: 1,
    proposer: creator,
    proposedAt: new Date(now.getTime() - DAY),
    challengeDeadline: new Date(now.getTime() + DAY),
    challenger,
    counterOutcome: 2,
    challengeBond: 100n * WAD,
    voteRound: 0,
    voteReason: null,
    voteDeadline: null,
    verdict: null,
    ballotRoot: null,
    ballotCount: null,
    finalOutcome: null,
    route: null,
    creatorSlashed: null,
    finalizedAt: null,
  };
  await db
    .insertInto('market_resolutions')
    .values({ chain_id: disputed.chain_id, market: disputed.address, phase: 'disputed', vote_round: 0, challenge_deadline: record.challengeDeadline, vote_deadline: null, final_outcome: null, record: JSON.stringify(resolutionRecordToJson(record)), updated_at: now })
    .execute();

  // The trader's P&L curve as the leaderboard updater keeps it: three earlier days, +$1,200, −$300, +$850.
  for (const [i, realized] of [1_200_000_000n, -300_000_000n, 850_000_000n].entries()) {
    await db
      .insertInto('leaderboard_days')
      .values({ wallet: trader, day: epochDay(new Date(now.getTime() - (6 - 2 * i) * DAY)), category: 'CRYPTO', realized, volume: 2_000_000_000n, trades: 2 })
      .execute();
  }
  await server.runtime.services.reputation.foldNow();
}

const newPage = (viewport?: Viewport) => openPage(context, problems, viewport);
const theses = (page: Page) => page.getByTestId('thesis');
const h1 = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

describe('the read pages in Chromium', () => {
  beforeAll(async () => {
    expectBuiltApp();
    server = await startTestServer();
    await seed();
    base = await server.runtime.listen();
    browser = await launchChromium();
    context = await newContext(browser);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });
  afterEach(() => expectNoProblems(problems));

  it('discovers markets with their theses in en-US, de-DE and ar-SA (right to left), keeping the locale on reload', async () => {
    const page = await newPage();
    const asked: string[] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname === '/api/v1/discovery/theses') asked.push(url.searchParams.get('locale') ?? '');
    });
    await page.goto(base + '/');
    await page.getByRole('link', { name: 'Discover' }).click();
    await page.waitForURL('**/discover');
    await expect.poll(() => h1(page)).toBe('Discover');
    await expect.poll(() => theses(page).count()).toBeGreaterThanOrEqual(3);
    expect(await page.getByTestId('theses').getAttribute('lang')).toBe('en-US');
    expect(await theses(page).allTextContents()).toContainEqual(expect.stringContaining('Will ETH close above $5,000 this quarter?'));
    const english = await page.getByTestId('thesis-text').first().textContent();
    await expectAccessible(page, 'discover en-US');
    await shot(page, 'discover');

    await page.getByTestId('locale-select').selectOption('de-DE');
    await expect.poll(() => h1(page)).toBe('Entdecken');
    await expect.poll(() => page.getByTestId('theses').getAttribute('lang')).toBe('de-DE');
    await expect.poll(() => page.getByTestId('thesis-text').first().textContent()).not.toBe(english);
    expect(await page.evaluate('document.documentElement.lang')).toBe('de-DE');
    expect(await page.evaluate('document.documentElement.dir')).toBe('ltr');
    await expectAccessible(page, 'discover de-DE');
    await shot(page, 'discover-de-DE');
    await page.reload();
    await expect.poll(() => h1(page)).toBe('Entdecken');
    await expect.poll(() => page.getByTestId('theses').getAttribute('lang')).toBe('de-DE');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId('locale-select').selectOption('ar-SA');
    await expect.poll(() => page.evaluate('document.documentElement.dir')).toBe('rtl');
    await expect.poll(() => h1(page)).toBe('اكتشف');
    await expect.poll(() => page.getByTestId('theses').getAttribute('dir')).toBe('rtl');
    await expect.poll(() => page.getByTestId('theses').getAttribute('lang')).toBe('ar-SA');
    await expectNoSidewaysScroll(page);
    await expectAccessible(page, 'discover ar-SA');
    await shot(page, 'discover-ar-SA-phone');
    await page.reload();
    await expect.poll(() => page.evaluate('document.documentElement.dir')).toBe('rtl');
    await expect.poll(() => h1(page)).toBe('اكتشف');
    expect(asked).toEqual(expect.arrayContaining(['en-US', 'de-DE', 'ar-SA']));
    await page.getByTestId('locale-select').selectOption('en-US');
    await expect.poll(() => page.evaluate('document.documentElement.dir')).toBe('ltr');
    await page.close();
  });

  it("tells a failed theses read in the words of its problem code, and retries", async () => {
    const page = await newPage();
    const theses503 = (url: URL) => url.pathname === '/api/v1/discovery/theses';
    await page.route(theses503, (route) =>
      route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, code: 'SERVICE_UNAVAILABLE', detail: 'indexer lag 42 blocks' }) }),
    );
    await page.goto(base + '/discover');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The service is busy or catching up with the chain.');
    expect(await page.getByRole('alert').textContent()).not.toContain('indexer lag');
    await expectAccessible(page, 'discover, error');
    await page.unroute(theses503);
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => theses(page).count()).toBeGreaterThanOrEqual(3);
    await page.close();
  });

  it('offers all 18 locales, each with its own words', async () => {
    const page = await newPage();
    await page.goto(base + '/discover');
    const codes = await page.getByTestId('locale-select').locator('option').evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    expect(codes).toEqual(['en-US', 'es-ES', 'es-AR', 'es-CO', 'es-MX', 'ms-MY', 'pt-BR', 'pt-PT', 'ja-JP', 'th-TH', 'id-ID', 'fil-PH', 'fr-FR', 'de-DE', 'it-IT', 'ar-SA', 'tr-TR', 'ko-KR']);
    const titles = new Set<string>();
    for (const code of codes) {
      await page.getByTestId('locale-select').selectOption(code);
      await expect.poll(() => page.evaluate('document.documentElement.lang')).toBe(code);
      titles.add((await page.getByRole('navigation').getByRole('link').first().textContent()) ?? '');
    }
    // The navigation's "Markets" differs between languages (regional variants of one language may agree).
    expect(titles.size).toBeGreaterThanOrEqual(10);
    await page.getByTestId('locale-select').selectOption('en-US');
    await page.close();
  });

  it("shows a wallet's profile: its tier, P&L curve and totals, track record and the markets it created", async () => {
    const page = await newPage();
    await page.goto(base + '/leaderboard');
    const link = page.getByTestId('leaderboard-table').locator(`a[href="/profiles/${trader}"]`);
    await expect.poll(() => link.count()).toBe(1);
    await link.click();
    await page.waitForURL(`**/profiles/${trader}`);
    await expect.poll(() => page.getByTestId('profile-tier').textContent()).toContain('Reputation tier: New');
    const chart = page.getByTestId('pnl-chart');
    await expect.poll(() => chart.getAttribute('data-drawn')).toBe('true');
    expect(await chart.locator('canvas').count()).toBeGreaterThan(0);
    expect(await chart.getAttribute('aria-label')).toContain('$1,750.00');
    await expect.poll(() => page.getByTestId('pnl-totals').textContent()).toContain('Largest drawdown');
    await expect.poll(() => page.getByTestId('track-record').textContent()).toMatch(/Trades\s*3/);
    expect(await page.getByText('This wallet has not created a market.').count()).toBe(1);
    await expectAccessible(page, 'profile');
    await shot(page, 'profile');

    await page.goto(`${base}/profiles/${creator}`);
    await expect.poll(() => page.getByTestId('created-markets').getByTestId('market-card').count()).toBe(3);
    await expect.poll(() => page.getByText('No realized profit or loss yet.').count()).toBe(1);
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoSidewaysScroll(page);
    await expectAccessible(page, 'profile, creator');
    await shot(page, 'profile-creator-phone');

    await page.goto(`${base}/profiles/not-an-address`);
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('This link is malformed.');
    await page.close();
  });

  it("shows a market's holders, comments with reputation tags, related markets and resolution timeline", async () => {
    const page = await newPage();
    await page.goto(`${base}/markets/${eth.address}`);
    await expect.poll(() => h1(page)).toBe('Will ETH close above $5,000 this quarter?');
    const holders = page.getByTestId('holders');
    await expect.poll(() => holders.locator('tbody tr').count()).toBe(2);
    expect(await holders.textContent()).toMatch(/Wallets holding\s*2/);
    expect((await holders.locator(`a[href="/profiles/${trader}"]`).textContent())?.toLowerCase()).toBe(short(trader));
    expect(await holders.textContent()).toContain('300');

    const comments = page.getByTestId('comment');
    await expect.poll(() => comments.count()).toBe(2);
    // Newest first, each with the author's tier (never a score) and position.
    expect(await comments.first().textContent()).toContain('Too optimistic, No is cheap.');
    expect(await comments.first().textContent()).toContain('holds 120 No');
    expect(await comments.nth(1).textContent()).toContain('holds 300 Yes');
    expect(await comments.nth(1).locator('.badge-tier').textContent()).toBe('New');

    const related = page.getByTestId('related');
    await expect.poll(() => related.getByRole('link').allTextContents()).toEqual(['Will BTC trade above $150,000 by June?']);

    const timeline = page.getByTestId('resolution');
    await expect.poll(() => timeline.locator('[data-step]').count()).toBeGreaterThanOrEqual(3);
    expect(await timeline.locator('[data-step="close"]').getAttribute('data-status')).toBe('current');
    expect(await timeline.locator('[data-step="proposal"]').getAttribute('data-status')).toBe('upcoming');
    expect(await timeline.locator('[data-step="final"]').getAttribute('data-status')).toBe('upcoming');
    await expectAccessible(page, 'market with extras');
    await shot(page, 'market-extras');

    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoSidewaysScroll(page);
    await shot(page, 'market-extras-phone');

    // From the related list to the other market, and from a comment to its author's profile.
    await related.getByRole('link').first().click();
    await expect.poll(() => h1(page)).toBe('Will BTC trade above $150,000 by June?');
    await page.goBack();
    await expect.poll(() => comments.count()).toBe(2);
    await comments.nth(1).getByRole('link').click();
    await page.waitForURL(`**/profiles/${trader}`);
    await expect.poll(() => page.getByTestId('profile-tier').textContent()).toContain('New');
    await page.close();
  });

  it('shows a challenged proposal on the resolution timeline', async () => {
    const page = await newPage();
    await page.goto(`${base}/markets/${disputed.address}`);
    const timeline = page.getByTestId('resolution');
    await expect.poll(() => timeline.locator('[data-step]').count()).toBe(5);
    const step = (key: string) => timeline.locator(`[data-step="${key}"]`);
    expect(await step('close').getAttribute('data-status')).toBe('done');
    expect(await step('proposal').getAttribute('data-status')).toBe('done');
    expect(await step('proposal').textContent()).toContain(`Yes, proposed by ${short(creator)}`);
    expect(await step('challenge').textContent()).toContain(`${short(challenger)} says No (bond 100 PM)`);
    expect(await step('vote').getAttribute('data-status')).toBe('upcoming');
    expect(await step('final').getAttribute('data-status')).toBe('upcoming');
    expect(await page.getByTestId('comments').textContent()).toContain('No comments yet.');
    expect(await page.getByTestId('holders').textContent()).toContain('Nobody holds shares yet.');
    await expectAccessible(page, 'market in challenge');
    await shot(page, 'market-challenged');
    await page.close();
  });
});
