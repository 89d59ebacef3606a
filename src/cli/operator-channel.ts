/**
 * The operator channel (docs/operator.md): a unix socket in DATA_DIR on which the running service takes the operator
 * commands (`svc keys create`, `svc agents create`, …) of its own user, so they work while the service holds the
 * database (the PGlite folder lock) and act through the service's own bus and services. One command per connection,
 * newline-delimited JSON:
 *
 *   request   {"svcOperator":1,"argv":["keys","create","--tier","execute"]}
 *   replies   {"out":"a line"} and {"err":"a line"} as the command prints them, then {"exit":0}
 *
 * Nothing of it listens on TCP. The socket is created with mode 0600 (only its owner may connect) in a folder that
 * only its owner may write (nobody else can replace it), and the client talks only to a socket its own user owns.
 */
import { chmodSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import type { Logger } from '../core/logger.ts';

export const OPERATOR_SOCKET_NAME = 'operator.sock';
const PROTOCOL = 1;
const MAX_REQUEST_BYTES = 1 << 20;
/** A connection that sends no request in this time is dropped (the request is one line, sent at once). */
const REQUEST_TIMEOUT_MS = 30_000;
/** In-flight commands get this long to finish when the service stops; their connections are then cut. */
const CLOSE_GRACE_MS = 10_000;
/** sun_path holds 108 bytes on Linux, the terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = 107;

/** Where a command writes its lines (the same shape as the CLI's). */
export interface ChannelIo {
  out(line: string): void;
  err(line: string): void;
}

/** Runs one operator command inside the service; resolves to its exit code (never rejects for a command's failure). */
export type RunOperatorCommand = (argv: string[], io: ChannelIo) => Promise<number>;

export interface OperatorChannel {
  /** The socket's path. */
  readonly path: string;
  /** Stops taking commands, lets those in flight finish (up to 10 s) and removes the socket. */
  close(): Promise<void>;
}

/** The channel cannot be opened here; the message says why and what to do. The service runs without it. */
export class OperatorChannelUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperatorChannelUnavailable';
  }
}

/** The operator socket of a data folder. */
export const operatorSocketPath = (dataDir: string): string => path.join(path.resolve(dataDir), OPERATOR_SOCKET_NAME);

/**
 * Listens on DATA_DIR/operator.sock. A socket left by a run that did not stop cleanly (nobody answers on it) is
 * replaced; a live one, a file that is not a socket, or a folder others may write refuse with
 * OperatorChannelUnavailable.
 */
export async function openOperatorChannel(opts: { dataDir: string; run: RunOperatorCommand; log: Logger }): Promise<OperatorChannel> {
  const socketPath = operatorSocketPath(opts.dataDir);
  const problem = folderProblem(path.dirname(socketPath));
  if (problem) throw new OperatorChannelUnavailable(problem);
  const bindPath = reachablePath(socketPath);
  await clearStaleSocket(socketPath, bindPath);

  const connections = new Set<Socket>();
  const inFlight = new Set<Promise<void>>();
  const server = createServer((socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
    const done = serveConnection(socket, opts.run, opts.log).finally(() => inFlight.delete(done));
    inFlight.add(done);
  });
  await listenPrivately(server, bindPath);
  server.on('error', (err) => opts.log.error({ err }, 'operator channel: the socket server failed'));
  try {
    chmodSync(socketPath, 0o600); // already 0600 where umask could be set; this also covers where it could not
  } catch (err) {
    server.close();
    throw err;
  }

  let closing: Promise<void> | null = null;
  return {
    path: socketPath,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        const grace = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
        await Promise.race([Promise.allSettled([...inFlight]), grace]);
        for (const socket of connections) socket.destroy();
        await stopped;
        removeIfSocket(socketPath); // libuv unlinks it on close; a leftover would only cost the next start a check
      })()),
  };
}

/**
 * Sends `argv` to the service listening on DATA_DIR/operator.sock and relays its lines to `io`; resolves to the
 * command's exit code, or null when no service answers there (no socket, or one a stopped run left behind).
 */
export async function callOperatorChannel(dataDir: string, argv: readonly string[], io: ChannelIo): Promise<number | null> {
  const socketPath = operatorSocketPath(dataDir);
  let stat;
  try {
    stat = lstatSync(socketPath);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return null;
    throw err;
  }
  if (!stat.isSocket()) return null;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new Error(`${socketPath} belongs to user id ${stat.uid}, not to you (${uid}): run svc as the user that runs the service`);
  }
  return new Promise<number | null>((resolve, reject) => {
    const socket = createConnection(reachablePath(socketPath));
    let connected = false;
    let exit: number | null = null;
    let buffered = '';
    socket.setEncoding('utf8');
    socket.once('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ svcOperator: PROTOCOL, argv })}\n`);
    });
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() === '') continue;
        let reply: { out?: unknown; err?: unknown; exit?: unknown };
        try {
          reply = JSON.parse(line) as typeof reply;
        } catch {
          socket.destroy();
          return reject(new Error(`${socketPath} answered something that is not the operator protocol: ${line.slice(0, 80)}`));
        }
        if (typeof reply.out === 'string') io.out(reply.out);
        else if (typeof reply.err === 'string') io.err(reply.err);
        else if (typeof reply.exit === 'number') exit = reply.exit;
      }
    });
    socket.once('error', (err) => {
      // Nobody listens (a socket a killed run left): the caller goes to the database directly.
      if (!connected && (isErrno(err, 'ECONNREFUSED') || isErrno(err, 'ENOENT'))) return resolve(null);
      if (exit !== null) return resolve(exit); // the command had finished; only the goodbye was lost
      reject(new Error(`operator channel ${socketPath}: ${err.message}`, { cause: err }));
    });
    socket.once('close', () => {
      if (exit !== null) return resolve(exit);
      if (connected) reject(new Error('the service closed the operator channel before the command finished (it may have stopped); check whether the command took effect before running it again'));
    });
  });
}

/** Reads one request, runs it, writes the replies. Never throws: a broken request gets an error line and exit 2. */
async function serveConnection(socket: Socket, run: RunOperatorCommand, log: Logger): Promise<void> {
  socket.on('error', () => undefined); // a client that went away: its command still runs to the end
  const send = (reply: object) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
  };
  let argv: string[];
  try {
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy(new Error(`no operator request within ${REQUEST_TIMEOUT_MS} ms`)));
    argv = parseRequest(await readRequest(socket));
    socket.setTimeout(0); // a command may run for minutes (svc seed)
  } catch (err) {
    send({ err: `svc: ${err instanceof Error ? err.message : String(err)}` });
    send({ exit: 2 });
    socket.end();
    return;
  }
  const began = Date.now();
  let code: number;
  try {
    code = await run(argv, { out: (line) => send({ out: line }), err: (line) => send({ err: line }) });
  } catch (err) {
    log.error({ err }, 'operator channel: a command failed outside its own error handling');
    send({ err: `svc: ${err instanceof Error ? err.message : String(err)}` });
    code = 1;
  }
  send({ exit: code });
  socket.end();
  // The command and its subcommand word only: arguments may carry text the operator would not want in the log.
  const command = argv.slice(0, 2).filter((word, i) => i === 0 || /^[a-z][a-z-]*$/.test(word)).join(' ');
  log.info({ command, exit: code, ms: Date.now() - began }, 'operator channel: command');
}

function readRequest(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline >= 0) return finish(() => resolve(text.slice(0, newline)));
      if (text.length > MAX_REQUEST_BYTES) finish(() => reject(new Error(`operator request over ${MAX_REQUEST_BYTES} bytes`)));
    };
    const onEnd = () => finish(() => reject(new Error('operator request ended before its newline')));
    const finish = (fn: () => void) => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      fn();
    };
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('close', onEnd);
  });
}

function parseRequest(line: string): string[] {
  let request: { svcOperator?: unknown; argv?: unknown };
  try {
    request = JSON.parse(line) as typeof request;
  } catch {
    throw new Error('operator request is not JSON');
  }
  if (request.svcOperator !== PROTOCOL) throw new Error(`operator protocol ${String(request.svcOperator)} is not served here (this svc speaks ${PROTOCOL}): use the svc of this checkout`);
  if (!Array.isArray(request.argv) || !request.argv.every((a) => typeof a === 'string')) throw new Error('operator request needs argv, an array of strings');
  return request.argv as string[];
}

/** Why the folder may not hold the socket: it must be ours and writable by us alone, or others could swap the socket. */
function folderProblem(dir: string): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return 'unix sockets with owner checks need a POSIX system';
  const stat = statSync(dir);
  if (stat.uid !== uid) return `${dir} belongs to user id ${stat.uid}, not to the user running svc (${uid})`;
  if ((stat.mode & 0o022) !== 0) return `${dir} may be written by its group or others (mode ${(stat.mode & 0o777).toString(8)}); chmod go-w ${dir} to open the channel`;
  return null;
}

/** The path to bind and connect to: the absolute one, or a relative one when that is too long for a socket address. */
function reachablePath(socketPath: string): string {
  if (Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH_BYTES) return socketPath;
  const relative = path.relative(process.cwd(), socketPath);
  if (Buffer.byteLength(relative) <= MAX_SOCKET_PATH_BYTES) return relative;
  throw new OperatorChannelUnavailable(`${socketPath} is longer than a unix socket address allows (${MAX_SOCKET_PATH_BYTES} bytes); use a shorter DATA_DIR`);
}

/** Removes a socket nobody answers on (a killed run's); refuses a live one and anything that is not our socket. */
async function clearStaleSocket(socketPath: string, bindPath: string): Promise<void> {
  let stat;
  try {
    stat = lstatSync(socketPath);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return;
    throw err;
  }
  if (!stat.isSocket()) throw new OperatorChannelUnavailable(`${socketPath} exists and is not a socket; move it away to open the channel`);
  if (await answers(bindPath)) throw new OperatorChannelUnavailable(`another svc already answers on ${socketPath}`);
  removeIfSocket(socketPath);
}

function answers(bindPath: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = createConnection(bindPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', (err) => (isErrno(err, 'ECONNREFUSED') || isErrno(err, 'ENOENT') ? resolve(false) : reject(err)));
  });
}

/** Binds with a umask that leaves the socket 0600 from its first moment (bind is synchronous inside listen). */
function listenPrivately(server: Server, bindPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      resolve();
    });
    let previous: number | null = null;
    try {
      previous = process.umask(0o177);
    } catch {
      // worker threads cannot change the umask; the chmod after listening still applies
    }
    try {
      server.listen(bindPath);
    } finally {
      if (previous !== null) process.umask(previous);
    }
  });
}

function removeIfSocket(socketPath: string): void {
  try {
    if (lstatSync(socketPath).isSocket()) unlinkSync(socketPath);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
