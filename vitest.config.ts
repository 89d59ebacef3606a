import { defineConfig } from 'vitest/config';

// Suites open PGlite and run on anvil. Two worker processes, each running its files one after another in one module
// graph (isolate: false): modules, PGlite's WASM, the migrated template and the shared chain are loaded once per
// worker, not once per file (docs/testing.md).
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: ['test/support/setup-fast-check.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    isolate: false,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
