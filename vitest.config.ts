import { defineConfig } from 'vitest/config';
import { PROCESS_SUITES } from './vitest.processes.config.ts';
import { WEB_SESSION_SUITES } from './vitest.web.config.ts';
import { onPostgres } from './test/support/postgres.ts';

// Suites open PGlite and run on anvil. Two worker processes, each running its files one after another in one module
// graph (isolate: false): modules, PGlite's WASM, the migrated template and the shared chain are loaded once per
// worker, not once per file (docs/testing.md). The process suites (real svc processes started and killed) run on their
// own: `npm run test:processes`, a .ci/run step on each database; `npm test` leaves them out to stay in its budget, as it
// does the web app's wallet-session suites (run by `npm run test:web`).
// Suites that never reach a database: nothing they import leads to src/db or the test databases, and none reads
// DATABASE_URL (test/architecture/database-free.test.ts checks it). They pass or fail alike on either database, so a run
// on PostgreSQL (DATABASE_URL set) leaves them to the run on PGlite (docs/testing.md).
export const DATABASE_FREE_FOLDERS = ['src/core', 'src/chain', 'test/contracts'];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...PROCESS_SUITES, ...WEB_SESSION_SUITES, ...(onPostgres ? DATABASE_FREE_FOLDERS.map((folder) => `${folder}/**`) : [])],
    setupFiles: ['test/support/setup-fast-check.ts'],
    // Names the run; on PostgreSQL drops the shared chains' template databases at its end.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    isolate: false,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
