// The anvil pid file: `<anvil pid> <svc pid>` next to the chain state, so a run after a crash can
// find and stop an anvil its dead predecessor left running (the fallback where setpriv is missing).
import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const ORPHAN_STOP_MS = 5_000;

/** Alive and not a zombie (an orphan killed under a non-reaping init stays a zombie but is gone). Linux /proc. */
function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  return stat === undefined || (stat.state !== 'Z' && stat.state !== 'X'); // no /proc: trust kill(0)
}

/**
 * A process as /proc/<pid>/stat shows it (Linux): its name, state, parent and CPU time so far (user + system, in clock
 * ticks: USER_HZ, 100 on Linux); undefined once it is gone or where there is no /proc. Also read by the order bench for a
 * local PostgreSQL server's CPU time (bench/server-cpu.ts).
 */
export function procStat(pid: number): ProcStat | undefined {
  return statAt(`/proc/${pid}/stat`);
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux this runs on). */
export const TICKS_PER_SECOND = 100;

export interface ProcStat {
  name: string;
  state: string;
  ppid: number;
  cpuTicks: number;
}

/** A stat file of /proc: a process's (/proc/<pid>/stat) or one of its threads' (/proc/<pid>/task/<tid>/stat), same format. */
export function statAt(file: string): ProcStat | undefined {
  try {
    const text = readFileSync(file, 'utf8');
    // The name (field 2) is in parentheses and may hold spaces: the fields after its last ')' are counted from 3.
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    const [state = '', ppid = ''] = fields;
    return { name: text.slice(text.indexOf('(') + 1, close), state, ppid: Number(ppid), cpuTicks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/**
 * Without setpriv's parent-death signal, anvil does not die with a svc that was SIGKILLed; it keeps
 * the port and keeps dumping the state file. If the last run's svc is dead and its anvil still runs on our state
 * file, stop it (SIGTERM: it dumps the state) so this run can start its own.
 */
export async function stopOrphanedAnvil(pidFile: string, stateFile: string, onOrphan: (anvilPid: number, ownerPid: number) => void): Promise<void> {
  const text = await readFile(pidFile, 'utf8').catch(() => '');
  const [anvilPid, ownerPid] = text.trim().split(/\s+/).map(Number);
  if (!anvilPid || !ownerPid || !Number.isSafeInteger(anvilPid) || !Number.isSafeInteger(ownerPid)) return;
  if (ownerPid !== process.pid && processRunning(ownerPid)) return; // a live svc owns it
  if (!processRunning(anvilPid) || procStat(anvilPid)?.ppid === process.pid) return; // gone, or our own child
  const argv = (await readFile(`/proc/${anvilPid}/cmdline`, 'utf8').catch(() => '')).split('\0');
  const stateAt = argv.indexOf('--state');
  if (!path.basename(argv[0] ?? '').startsWith('anvil') || stateAt < 0 || argv[stateAt + 1] !== path.resolve(stateFile)) return;
  onOrphan(anvilPid, ownerPid);
  const deadline = Date.now() + ORPHAN_STOP_MS;
  try {
    process.kill(anvilPid, 'SIGTERM');
    while (processRunning(anvilPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (processRunning(anvilPid)) process.kill(anvilPid, 'SIGKILL');
    while (processRunning(anvilPid) && Date.now() < deadline + 2_000) await new Promise((r) => setTimeout(r, 50));
  } catch {
    // Gone between our checks, or not ours to signal: startAnvil's port check reports what remains.
  }
}

export async function recordAnvil(pidFile: string, anvilPid: number): Promise<string> {
  const line = `${anvilPid} ${process.pid}\n`;
  await writeFile(pidFile, line);
  return line;
}

/** Removes the pid file if it still describes our anvil (`line` from recordAnvil). */
export async function forgetAnvil(pidFile: string, line: string): Promise<void> {
  if ((await readFile(pidFile, 'utf8').catch(() => '')) === line) await rm(pidFile, { force: true });
}
