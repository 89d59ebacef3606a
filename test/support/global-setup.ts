// Once per test run (vitest globalSetup): names the run for its workers, and on PostgreSQL drops the shared chains'
// template databases when it ends (test/support/postgres.ts).
import { randomBytes } from 'node:crypto';
import { dropTemplates, onPostgres } from './postgres.ts';

export default function setup(): () => Promise<void> {
  // Set before the workers start, which inherit it.
  process.env.SVC_TEST_RUN ??= randomBytes(4).toString('hex');
  return async () => {
    if (onPostgres) await dropTemplates();
  };
}
