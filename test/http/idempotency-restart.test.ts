// A claim left in progress by a process that died: the retry runs at once instead of answering 409
// IDEMPOTENCY_IN_PROGRESS for the 60 s lease.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.ts';
import { fixtureCatalog } from '../support/fixture-capabilities.ts';
import { dropPostgres, freshPostgresUrl, onPostgres, startTestServer } from '../support/harness.ts';

// PGlite: start-up releases every claim in progress (one process holds the folder). PostgreSQL: the claim names the
// member that held it, and a retry takes it over at once once that process is gone (docs/operations.md "Idempotency
// across a death"); a claim of a live process still waits (test/cluster/cluster.test.ts).
it(`a claim a dead process left in progress is ${onPostgres ? 'taken over at once by a retry (PostgreSQL)' : 'released at the next start (PGlite)'}`, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-idem-restart-'));
  const databaseUrl = onPostgres ? await freshPostgresUrl() : undefined;
  const dbRef: { db?: Kysely<DB> } = {};
  const start = async () => {
    const server = await startTestServer({ dataDir, persistent: true, databaseUrl, catalog: fixtureCatalog(dbRef) });
    dbRef.db = server.runtime.database.db;
    return server;
  };
  try {
    const first = await start();
    const key = await first.key('propose');
    const note = (server: typeof first, idempotencyKey: string, text: string) =>
      server.call('POST', '/api/agent/v1/test/notes', { key, idempotencyKey, body: { text, n: 1 } });
    // What a process killed mid-request leaves: a claim still in progress (its answer never stored).
    expect((await note(first, 'in-flight', 'again')).status).toBe(200);
    await dbRef.db!
      .updateTable('idempotency_records')
      .set({ state: 'in_progress', status_code: null, response_body: null, completed_at: null, created_at: new Date() })
      .where('idem_key', '=', 'in-flight')
      .execute();
    await first.close();

    const second = await start();
    try {
      const retry = await note(second, 'in-flight', 'again');
      expect(retry.status, retry.text).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      if (onPostgres) {
        const record = await dbRef.db!.selectFrom('idempotency_records').select(['state', 'holder']).where('idem_key', '=', 'in-flight').executeTakeFirstOrThrow();
        expect(record).toEqual({ state: 'done', holder: second.runtime.services.cluster.memberId });
      }
    } finally {
      await second.close();
    }
  } finally {
    if (databaseUrl) await dropPostgres(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
