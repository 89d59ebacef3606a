import { defineConfig } from 'vitest/config';

/** The app's wallet-session API suites: run with the browser suite (`npm run test:web`), not in `npm test`. */
export const WEB_SESSION_SUITES = ['test/web/session-trading.test.ts', 'test/web/session-portfolio.test.ts', 'test/web/buy-live.test.ts'];

// The browser suite (docs/web.md "Tests"): Debian's Chromium driven by playwright-core against a real embedded svc,
// and the server-side suites of what the app does with a wallet session (WEB_SESSION_SUITES). `npm run test:web`
// builds the app first (pretest:web); `npm test` leaves them out to stay within its time budget. One worker: a browser
// is heavy on two cores (a second worker took 146 s against 166, each file ~1.6x slower); .ci/run runs its checks beside
// it instead. One module graph for the worker, as in vitest.config.ts: each file importing the service afresh took
// ~2.6 s (the suite 166 s isolated, 120 s not).
export default defineConfig({
  test: {
    include: ['test/web/**/*.e2e.ts', ...WEB_SESSION_SUITES],
    setupFiles: ['test/support/setup-fast-check.ts'],
    // Names the run; on PostgreSQL drops the shared chains' template databases at its end.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    // A page reached over a real server and drawn by a browser can take more than expect.poll's default second when the
    // machine is busy (.ci/run runs the typecheck beside this suite): a poll that did not name its own waits up to 10 s.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 180_000,
    pool: 'forks',
    isolate: false,
    maxWorkers: 1,
    reporters: ['default'],
  },
});
