// The identity sequences writers take numbers from by name (src/db/sequences.ts) are the ones the catalog gives for
// their columns, on both back ends: a migration that renamed one would fail here, not in a transaction.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, type Database } from '../../src/db/index.ts';
import { IDENTITY_SEQUENCES } from '../../src/db/sequences.ts';
import { backends, type Backend } from './backends.ts';

for (const b of await backends()) {
  describe.skipIf(b.skip)(`identity sequences on ${b.name}`, () => {
    let backend: Backend;
    let database: Database;
    beforeAll(async () => {
      backend = b.make();
      database = await backend.fresh();
      await migrateToLatest(database.db);
    });
    afterAll(async () => backend?.cleanup());

    it('name the sequence of each column, as pg_get_serial_sequence does', async () => {
      for (const [column, name] of Object.entries(IDENTITY_SEQUENCES)) {
        const [table, col] = column.split('.') as [string, string];
        const { rows } = await sql<{ s: string }>`SELECT pg_get_serial_sequence(${table}, ${col}) AS s`.execute(database.db);
        expect(rows[0]!.s, column).toBe(`public.${name}`);
      }
    });
  });
}
