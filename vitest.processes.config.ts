import { defineConfig } from 'vitest/config';

// The process suites: real `svc start` processes started, stopped and SIGKILLed (docs/testing.md "Process suites"):
// the crash suite, the restart suite, the seed-crash suite, the resolution restart-in-every-phase suite and the events resume suite. `npm run test:processes` (a .ci/run step on each
// database); `npm test` leaves them out to stay within its time budget.
export const PROCESS_SUITES = ['test/crash/**/*.test.ts', 'test/runtime/restart.test.ts', 'test/markets/seed-crash.test.ts', 'test/resolution/restart-phases.test.ts', 'test/events/restart-resume.test.ts'];

export default defineConfig({
  test: {
    include: PROCESS_SUITES,
    setupFiles: ['test/support/setup-fast-check.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
