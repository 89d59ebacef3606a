import { defineConfig } from 'vitest/config';

// The process suites: real `svc start` processes started, stopped and SIGKILLed (docs/testing.md "Process suites"):
// the crash suite, the restart suite, the seed-crash suite, the resolution restart-in-every-phase suite, the events resume suite and the two-processes suite
// (PostgreSQL only), the operator channel's start; and the slow restart suites (the ledger batcher's crash points, the PGlite
// folder lock across processes, an idempotency claim a dead process left). `npm run test:processes` (a .ci/run step on each database); `npm test` leaves them out to stay within its time budget.
export const PROCESS_SUITES = [
  'test/crash/**/*.test.ts',
  'test/runtime/restart.test.ts',
  'test/markets/seed-crash.test.ts',
  'test/resolution/restart-phases.test.ts',
  'test/events/restart-resume.test.ts',
  'test/events/two-processes.test.ts',
  'test/cluster/three-processes.test.ts',
  'test/cluster/workers.test.ts',
  // the operator channel of a real svc start: banner, commands while it runs, a SIGKILLed run's socket
  'test/cli/operator-start.test.ts',
  // restarts within the test process, and locks held by other processes: slow, so with the process suites
  'test/ledger/crash.test.ts',
  'test/db/lock.test.ts',
  'test/http/idempotency-restart.test.ts',
  'test/economy/card-restart.test.ts',
  // the svc command on data folders of its own (the real binary, and the operator channel of a persistent PGlite)
  'test/cli/cli.test.ts',
  'test/cli/operator-channel.test.ts',
  'test/markets/operator-cli.test.ts',
];

export default defineConfig({
  test: {
    include: PROCESS_SUITES,
    setupFiles: ['test/support/setup-fast-check.ts'],
    // Names the run; on PostgreSQL drops the shared chains' template databases at its end.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One module graph per worker, as in vitest.config.ts: each file importing the service afresh took ~4 s.
    isolate: false,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
