import { defineConfig } from 'vitest/config';

// The crash suite (docs/testing.md "The crash suite"): real svc processes killed under order load. One file, so one
// worker; `npm run test:crash`, with DATABASE_URL for PostgreSQL.
export default defineConfig({
  test: {
    include: ['test/crash/**/*.test.ts'],
    setupFiles: ['test/support/setup-fast-check.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    reporters: ['default'],
  },
});
