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

/** One response head and body, cut out of a stream of bytes as they arrive (in any pieces). */
export class ResponseParser {
  #pending: Buffer | null = null;
  /** The response being read: its status, whether the server closes after it, what of its body is left. */
  #head: { status: number; close: boolean } | null = null;
  #remaining = 0;
  #chunked = false;
  /** Chunked: the body's chunks so far, and whether the next bytes are a chunk's size line (else its data and CRLF). */
  #chunks: Buffer[] = [];
  #atSize = true;
  #bytes = 0;
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
    for (;;) {
      const answered = this.#step();
      if (answered === null) return done;
      done.push(answered);
    }
  }

  /** Takes what the pending bytes allow; a completed response, or null when more bytes are needed. */
  #step(): { answer: Answer; close: boolean } | null {
    const buf = this.#pending;
    if (buf === null) return null;
    if (this.#head === null) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return null;
      this.#readHead(buf.toString('latin1', 0, end));
      this.#take(end + 4);
      if (!this.#chunked && this.#remaining === 0) return this.#finish();
      return this.#step();
    }
    if (!this.#chunked) {
      const n = Math.min(this.#remaining, buf.length);
      this.#body(buf.subarray(0, n));
      this.#take(n);
      this.#remaining -= n;
      return this.#remaining === 0 ? this.#finish() : null;
    }
    if (this.#atSize) {
      const eol = buf.indexOf('\r\n');
      if (eol < 0) return null;
      const size = Number.parseInt(buf.toString('latin1', 0, eol).split(';')[0]!.trim(), 16);
      if (!Number.isInteger(size) || size < 0) throw new Error(`http1: a chunk size that is not one: ${JSON.stringify(buf.toString('latin1', 0, eol))}`);
      this.#take(eol + 2);
      this.#atSize = false;
      // The last chunk leaves only the trailers' end; another, its data and its CRLF.
      this.#remaining = size === 0 ? -1 : size + 2;
      return this.#step();
    }
    if (this.#remaining === -1) {
      // Trailers are not used by the service: the empty line that ends them.
      const end = buf.indexOf('\r\n');
      if (end < 0) return null;
      this.#take(end + 2);
      if (end === 0) return this.#finish();
      return this.#step();
    }
    const n = Math.min(this.#remaining, buf.length);
    this.#body(buf.subarray(0, Math.min(n, Math.max(0, this.#remaining - 2))));
    this.#take(n);
    this.#remaining -= n;
    if (this.#remaining > 0) return null;
    this.#atSize = true;
    return this.#step();
  }

  #readHead(text: string): void {
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
    this.#chunked = chunked && !bodiless;
    this.#atSize = true;
    this.#remaining = bodiless || chunked ? 0 : length;
    this.#keepBody = this.#keepBodyOf();
  }

  #body(data: Buffer): void {
    this.#bytes += data.length;
    if (this.#keepBody && data.length > 0) this.#chunks.push(Buffer.from(data));
  }

  #take(n: number): void {
    const buf = this.#pending!;
    this.#pending = n >= buf.length ? null : buf.subarray(n);
  }

  #finish(): { answer: Answer; close: boolean } {
    const head = this.#head!;
    const answer: Answer = { status: head.status, bytes: this.#bytes, body: this.#keepBody ? Buffer.concat(this.#chunks).toString('utf8') : null };
    this.#head = null;
    this.#chunks = [];
    this.#bytes = 0;
    this.#chunked = false;
    this.#remaining = 0;
    return { answer, close: head.close };
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
