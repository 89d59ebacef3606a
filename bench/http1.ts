// The load client's HTTP/1.1: one keep-alive connection a socket, one request at a time, each request written as one
// string and each response read by a small parser (status, content-length or chunked body, connection close). node:http's
// client cost ~47 µs of CPU a request on this machine against ~16 for this (session 32, docs/orderbook.md): on two
// cores shared with the service under test, that difference is CPU the service did not get.
import net from 'node:net';

/** One answer: its status, the body's length in bytes, and the body itself when it was asked for. */
export interface Answer {
  status: number;
  bytes: number;
  body: string | null;
}

/**
 * What a parser reads next: a head, a body of known length, a chunk's size line, a chunk's data and CRLF, or the
 * trailers' end after the last chunk.
 */
type Reading = 'head' | 'length' | 'size' | 'chunk' | 'trailers';

/** One response head and body, cut out of a stream of bytes as they arrive (in any pieces). */
export class ResponseParser {
  #pending: Buffer | null = null;
  #reading: Reading = 'head';
  /** The response being read: its status and whether the server closes after it. */
  #head: { status: number; close: boolean } = { status: 0, close: false };
  /** `length`: the body's bytes still to come; `chunk`: the chunk's data and its CRLF still to come. */
  #remaining = 0;
  /** The body's bytes so far, and its pieces when it is kept. */
  #bytes = 0;
  #pieces: Buffer[] = [];
  /** Whether the response being read keeps its body's text, asked when its head arrives. */
  #keepBody = false;
  readonly #keepBodyOf: () => boolean;

  constructor(keepBody: () => boolean) {
    this.#keepBodyOf = keepBody;
  }

  /**
   * Feeds bytes; answers the responses they complete, in order, each with whether the server closes the connection
   * after it. Throws on bytes that are not an HTTP/1.1 response.
   */
  push(data: Buffer): { answer: Answer; close: boolean }[] {
    this.#pending = this.#pending === null ? data : Buffer.concat([this.#pending, data]);
    const done: { answer: Answer; close: boolean }[] = [];
    while (this.#pending !== null && this.#step(this.#pending, done));
    return done;
  }

  /** Reads what `buf` (the pending bytes) allows of the next part; false when it needs more bytes. */
  #step(buf: Buffer, done: { answer: Answer; close: boolean }[]): boolean {
    switch (this.#reading) {
      case 'head': {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return false;
        this.#take(end + 4);
        if (this.#readHead(buf.toString('latin1', 0, end))) done.push(this.#finish());
        return true;
      }
      case 'length': {
        const n = Math.min(this.#remaining, buf.length);
        this.#body(buf.subarray(0, n));
        this.#take(n);
        this.#remaining -= n;
        if (this.#remaining === 0) done.push(this.#finish());
        return true;
      }
      case 'size': {
        const eol = buf.indexOf('\r\n');
        if (eol < 0) return false;
        const line = buf.toString('latin1', 0, eol);
        const size = Number.parseInt(line.split(';')[0]!.trim(), 16);
        if (!Number.isInteger(size) || size < 0) throw new Error(`http1: a chunk size that is not one: ${JSON.stringify(line)}`);
        this.#take(eol + 2);
        this.#reading = size === 0 ? 'trailers' : 'chunk';
        this.#remaining = size + 2;
        return true;
      }
      case 'chunk': {
        const n = Math.min(this.#remaining, buf.length);
        // The chunk's data, not its CRLF.
        this.#body(buf.subarray(0, Math.min(n, Math.max(0, this.#remaining - 2))));
        this.#take(n);
        this.#remaining -= n;
        if (this.#remaining === 0) this.#reading = 'size';
        return true;
      }
      case 'trailers': {
        // Trailers are not used by the service: lines up to the empty one that ends them.
        const eol = buf.indexOf('\r\n');
        if (eol < 0) return false;
        this.#take(eol + 2);
        if (eol === 0) done.push(this.#finish());
        return true;
      }
    }
  }

  /** Reads a head and what its body will be; true when there is no body to read. */
  #readHead(text: string): boolean {
    const lines = text.split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!);
    if (!status) throw new Error(`http1: not a response: ${JSON.stringify(lines[0])}`);
    let length = 0;
    let chunked = false;
    let close = lines[0]!.startsWith('HTTP/1.0');
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim().toLowerCase();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = value.split(',').some((v) => v.trim() === 'chunked');
      else if (name === 'connection') close = value.split(',').some((v) => v.trim() === 'close');
    }
    const code = Number(status[1]);
    const bodiless = code < 200 || code === 204 || code === 304;
    this.#head = { status: code, close };
    this.#reading = chunked && !bodiless ? 'size' : 'length';
    this.#remaining = bodiless || chunked ? 0 : length;
    this.#keepBody = this.#keepBodyOf();
    return this.#reading === 'length' && this.#remaining === 0;
  }

  #body(data: Buffer): void {
    this.#bytes += data.length;
    if (this.#keepBody && data.length > 0) this.#pieces.push(Buffer.from(data));
  }

  #take(n: number): void {
    const buf = this.#pending!;
    this.#pending = n >= buf.length ? null : buf.subarray(n);
  }

  #finish(): { answer: Answer; close: boolean } {
    const answer: Answer = { status: this.#head.status, bytes: this.#bytes, body: this.#keepBody ? Buffer.concat(this.#pieces).toString('utf8') : null };
    const close = this.#head.close;
    this.#reading = 'head';
    this.#pieces = [];
    this.#bytes = 0;
    return { answer, close };
  }
}

/** A request: its method and path, its headers (names in lower case), and a JSON body for a POST. */
export interface Outgoing {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** The request's bytes as one string: its line, Host, its headers, Content-Length for a body, then the body. */
export function requestText(host: string, port: number, out: Outgoing): string {
  // An IPv6 literal goes in brackets in Host (RFC 9110 §7.2, as in a URL).
  let text = `${out.method} ${out.path} HTTP/1.1\r\nhost: ${host.includes(':') ? `[${host}]` : host}:${port}\r\n`;
  for (const [name, value] of Object.entries(out.headers)) text += `${name}: ${value}\r\n`;
  if (out.body !== undefined) text += `content-length: ${Buffer.byteLength(out.body)}\r\n\r\n${out.body}`;
  else text += '\r\n';
  return text;
}

/**
 * A keep-alive connection to one server, one request at a time (the caller waits for an answer before the next). It
 * connects on its first request and again after the server closed it; a request in flight when the socket fails or
 * closes is rejected.
 */
export class Http1Connection {
  readonly #host: string;
  readonly #port: number;
  #socket: net.Socket | null = null;
  #waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void; keepBody: boolean } | null = null;

  constructor(host: string, port: number) {
    this.#host = host;
    this.#port = port;
  }

  /** Sends the request and answers its response; `keepBody`: keep the body's text (else only its length). */
  request(out: Outgoing, keepBody: boolean): Promise<Answer> {
    if (this.#waiting) return Promise.reject(new Error('http1: a request is already in flight on this connection'));
    return new Promise<Answer>((resolve, reject) => {
      this.#waiting = { resolve, reject, keepBody };
      (this.#socket ?? this.#connect()).write(requestText(this.#host, this.#port, out));
    });
  }

  /** Closes the socket; a request in flight is rejected. */
  close(): void {
    this.#socket?.destroy();
  }

  #connect(): net.Socket {
    const socket = net.connect(this.#port, this.#host);
    socket.setNoDelay(true);
    const parser = new ResponseParser(() => this.#waiting?.keepBody ?? false);
    this.#socket = socket;
    // Only the current socket's failure fails the request in flight: one the server closed after answering (connection:
    // close) was let go before the next request connected again.
    const fail = (err: Error) => {
      socket.destroy();
      if (this.#socket !== socket) return;
      this.#socket = null;
      const waiting = this.#waiting;
      this.#waiting = null;
      waiting?.reject(err);
    };
    socket.on('data', (data: Buffer) => {
      let done;
      try {
        done = parser.push(data);
      } catch (err) {
        return fail(err as Error);
      }
      for (const { answer, close } of done) {
        const waiting = this.#waiting;
        if (!waiting) return fail(new Error(`http1: a response (${answer.status}) nothing asked for`));
        this.#waiting = null;
        if (close) {
          this.#socket = null;
          socket.end();
        }
        waiting.resolve(answer);
      }
    });
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('http1: the server closed the connection')));
    return socket;
  }
}
