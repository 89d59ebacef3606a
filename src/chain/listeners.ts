/**
 * Which process holds a listening TCP port, read from Linux's /proc: the listening sockets' inodes in /proc/net/tcp
 * (and tcp6), and the socket inodes among a process's open files. anvil's start uses it to tell its own node from
 * another process's on the same port; the process tests use it to find the anvil a killed svc left behind.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Inodes of the sockets listening on `port` (any local address, IPv4 and IPv6); null where /proc/net cannot be read. */
export function listeningInodes(port: number): Set<string> | null {
  const inodes = new Set<string>();
  let read = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    read = true;
    // Columns: sl local_address rem_address st … inode; the port in hex after the address; state 0A is LISTEN.
    for (const row of text.split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      const local = cols[1];
      if (!local || cols[3] !== '0A' || !cols[9]) continue;
      if (Number.parseInt(local.split(':').at(-1) ?? '', 16) === port) inodes.add(cols[9]);
    }
  }
  return read ? inodes : null;
}

/**
 * The socket inodes among `pid`'s open files: empty for a process that is gone (it holds nothing), null where its files
 * cannot be read (another user's process).
 */
export function socketInodesOf(pid: number): Set<string> | null {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? new Set() : null;
  }
  const inodes = new Set<string>();
  for (const fd of fds) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined) inodes.add(inode);
  }
  return inodes;
}

/** Whether `pid` holds a socket listening on `port`; null where /proc cannot tell (not Linux, no access). */
export function listensOn(pid: number, port: number): boolean | null {
  const listening = listeningInodes(port);
  const held = listening && socketInodesOf(pid);
  if (!listening || !held) return null;
  return [...held].some((inode) => listening.has(inode));
}
