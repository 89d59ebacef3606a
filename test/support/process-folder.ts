// The folder, database and ports a real `svc start` of a process suite runs on (restart, seed crash, crash suite).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, killAnvilOnPort } from '../cli/svc-process.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from './harness.ts';
import { migratedPGlite } from './pglite-template.ts';

export interface ProcessFolder {
  dataDir: string;
  /** A fresh PostgreSQL database when the run is on PostgreSQL (DATABASE_URL), else undefined (PGlite in dataDir/pg). */
  databaseUrl: string | undefined;
  port: number;
  anvilPort: number;
  /** http://127.0.0.1:<port> */
  base: string;
  /** DATA_DIR, PORT, ANVIL_PORT and DATABASE_URL when on PostgreSQL. */
  env: Record<string, string>;
  /** Kills an anvil left on the port, drops the database, removes the folder; returns the pids of leaked anvils. */
  remove(): Promise<number[]>;
}

export async function processFolder(prefix: string): Promise<ProcessFolder> {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  // PGlite: the folder as `svc migrate` leaves it, copied from the migrated template (initdb has its own tests).
  if (!onPostgres) await (await migratedPGlite(path.join(dataDir, 'pg'))).close();
  const databaseUrl = onPostgres ? await freshPostgresUrl() : undefined;
  const port = await freePort();
  let anvilPort = await freePort();
  while (anvilPort === port) anvilPort = await freePort();
  return {
    dataDir,
    databaseUrl,
    port,
    anvilPort,
    base: `http://127.0.0.1:${port}`,
    env: { DATA_DIR: dataDir, PORT: String(port), ANVIL_PORT: String(anvilPort), ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    async remove() {
      const leaked = killAnvilOnPort(anvilPort);
      if (databaseUrl) await dropPostgres(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
      return leaked;
    },
  };
}
