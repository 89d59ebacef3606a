import { defineConfig } from 'vitest/config';

// Suites open PGlite and run on anvil. Two worker processes, each running its files one after another in one module
// graph (isolate: false): modules, PGlite's WASM, the migrated template and the shared chain are loaded once per
// worker, not once per file (docs/testing.md). The crash suite runs on its own (npm run test:crash, a .ci/run step):
// it kills real processes for about half a minute per database, which `npm test` leaves out to stay in its budget.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/crash/**'],
    setupFiles: ['test/support/setup-fast-check.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    isolate: false,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
