/**
 * The CPU time of a local PostgreSQL server while a scenario runs: every process the postmaster started (its backends,
 * the WAL writer, the checkpointer…), read from /proc. The service's own CPU time (process.cpuUsage) leaves the
 * database's out; on a machine whose cores the two share, both are what an order costs. Only where the server runs on
 * this machine and /proc is readable (Linux); elsewhere there is nothing to read and the bench prints a dash.
 */
import { readdirSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import { procStat, TICKS_PER_SECOND } from '../src/chain/anvil-pidfile.ts';
import type { DB } from '../src/db/schema.ts';

/** CPU time (µs) of the server's processes now: the postmaster's children, gone ones not counted. */
function serverCpuUs(postmaster: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = procStat(pid);
    if (stat && stat.ppid === postmaster) total += stat.cpuTicks;
  }
  return (total * 1_000_000) / TICKS_PER_SECOND;
}

/**
 * Starts counting the server's CPU time; `stop()` answers the µs it used since (processes that ended meanwhile leave
 * theirs out). Null when the server is not a local process this one can read.
 */
export async function watchServerCpu(db: Kysely<DB>): Promise<{ stop(): number } | null> {
  const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db);
  const backend = rows[0] ? procStat(rows[0].pid) : undefined;
  // A remote server's backend pid may name some other process here.
  if (!backend || backend.name !== 'postgres') return null;
  const postmaster = backend.ppid;
  const start = serverCpuUs(postmaster);
  return { stop: () => serverCpuUs(postmaster) - start };
}

/**
 * Starts counting the write-ahead log the server writes; `stop()` answers the bytes written since (the distance its
 * insert position moved). Unlike CPU time, what the writes cost in log is the same on any machine and in any phase of
 * it, so it tells a change of the write model from noise in one run (docs/orderbook.md, session 28). The whole
 * server's log: other databases' writes meanwhile would count too (the bench's is the only one it writes to).
 */
export async function watchWal(db: Kysely<DB>): Promise<{ stop(): Promise<number> }> {
  const { rows } = await sql<{ lsn: string }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`.execute(db);
  const start = rows[0]!.lsn;
  return {
    stop: async () => {
      const { rows: moved } = await sql<{ bytes: string }>`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ${start}::pg_lsn)::text AS bytes`.execute(db);
      return Number(moved[0]!.bytes);
    },
  };
}
