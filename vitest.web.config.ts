import { defineConfig } from 'vitest/config';

// The browser suite (docs/web.md "Tests"): Debian's Chromium driven by playwright-core against a real embedded svc.
// `npm run test:web` builds the app first (pretest:web); `npm test` leaves it out (its files end in .e2e.ts, not
// .test.ts) to stay within its time budget. One file, one worker: a browser is heavy on two cores.
export default defineConfig({
  test: {
    include: ['test/web/**/*.e2e.ts'],
    setupFiles: ['test/support/setup-fast-check.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 1,
    reporters: ['default'],
  },
});
