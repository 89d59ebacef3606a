// A claim left in progress by a process that died: on the embedded database (one process holds the folder) the next
// start releases it, so the retry runs at once instead of answering 409 IDEMPOTENCY_IN_PROGRESS for the 60 s lease;
// on PostgreSQL (processes may share the table) the lease decides.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.ts';
import { fixtureCatalog } from '../support/fixture-capabilities.ts';
import { dropPostgres, freshPostgresUrl, onPostgres, startTestServer } from '../support/harness.ts';

it(`a claim a dead process left in progress is ${onPostgres ? 'kept until its lease ends (PostgreSQL)' : 'released at the next start (PGlite)'}`, async () => {
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
      if (onPostgres) {
        expect(retry.status).toBe(409);
        expect(retry.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
      } else {
        expect(retry.status, retry.text).toBe(200);
        expect(retry.headers['idempotent-replayed']).toBeUndefined();
      }
    } finally {
      await second.close();
    }
  } finally {
    if (databaseUrl) await dropPostgres(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
