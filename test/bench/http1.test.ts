// The load client's HTTP/1.1: responses cut from bytes in any pieces, and a keep-alive connection to a real server.
import fc from 'fast-check';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Http1Connection, ResponseParser, requestText } from '../../bench/http1.ts';

/** A response as a server could write it: by content-length, or chunked in the given pieces. */
function responseBytes(status: number, body: string, chunks: number[] | null, close = false): Buffer {
  const head = [`HTTP/1.1 ${status} X`, 'content-type: application/json', ...(close ? ['Connection: close'] : [])];
  if (chunks === null) return Buffer.from(`${[...head, `Content-Length: ${Buffer.byteLength(body)}`].join('\r\n')}\r\n\r\n${body}`);
  const bytes = Buffer.from(body);
  let at = 0;
  let text = `${[...head, 'Transfer-Encoding: chunked'].join('\r\n')}\r\n\r\n`;
  const parts: Buffer[] = [Buffer.from(text)];
  for (const size of chunks) {
    const piece = bytes.subarray(at, Math.min(bytes.length, at + size));
    at += piece.length;
    if (piece.length === 0) continue;
    parts.push(Buffer.from(`${piece.length.toString(16)};ext=1\r\n`), piece, Buffer.from('\r\n'));
  }
  if (at < bytes.length) parts.push(Buffer.from(`${(bytes.length - at).toString(16)}\r\n`), bytes.subarray(at), Buffer.from('\r\n'));
  text = '0\r\n\r\n';
  parts.push(Buffer.from(text));
  return Buffer.concat(parts);
}

/** Cuts `bytes` at the given offsets (sorted, deduplicated, within its length). */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const offsets = [...new Set(at.map((a) => a % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const o of [...offsets, bytes.length]) {
    pieces.push(bytes.subarray(from, o));
    from = o;
  }
  return pieces;
}

describe('ResponseParser', () => {
  it('answers each response of a stream in order, whatever pieces its bytes arrive in', () => {
    const response = fc.record({
      status: fc.constantFrom(200, 201, 204, 400, 429, 500),
      body: fc.string({ unit: 'grapheme', maxLength: 200 }),
      chunks: fc.option(fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 6 })),
    });
    fc.assert(
      fc.property(fc.array(response, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 20 }), fc.boolean(), (responses, at, keepBody) => {
        const stream = Buffer.concat(responses.map((r) => responseBytes(r.status, r.status === 204 ? '' : r.body, r.status === 204 ? null : r.chunks)));
        const parser = new ResponseParser(() => keepBody);
        const answers = cut(stream, at).flatMap((piece) => parser.push(piece));
        expect(answers.map(({ answer }) => answer)).toEqual(
          responses.map((r) => {
            const body = r.status === 204 ? '' : r.body;
            return { status: r.status, bytes: Buffer.byteLength(body), body: keepBody ? body : null };
          }),
        );
        expect(answers.every(({ close }) => !close)).toBe(true);
      }),
      { seed: 2212, numRuns: 300 },
    );
  });

  it('tells a response after which the server closes the connection', () => {
    const parser = new ResponseParser(() => true);
    const [one] = parser.push(responseBytes(429, '{"code":"RATE_LIMITED"}', null, true));
    expect(one).toEqual({ answer: { status: 429, bytes: 23, body: '{"code":"RATE_LIMITED"}' }, close: true });
  });

  it('refuses bytes that are not a response', () => {
    expect(() => new ResponseParser(() => false).push(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(/not a response/);
    expect(() => new ResponseParser(() => false).push(Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'))).toThrow(/chunk size/);
  });
});

describe('requestText', () => {
  it('writes the line, the host, the headers and a body with its length in bytes', () => {
    expect(requestText('127.0.0.1', 80, { method: 'POST', path: '/p?q=1', headers: { authorization: 'Bearer t' }, body: '{"a":"é"}' })).toBe(
      'POST /p?q=1 HTTP/1.1\r\nhost: 127.0.0.1:80\r\nauthorization: Bearer t\r\ncontent-length: 10\r\n\r\n{"a":"é"}',
    );
    expect(requestText('::1', 1, { method: 'GET', path: '/', headers: {} })).toBe('GET / HTTP/1.1\r\nhost: [::1]:1\r\n\r\n');
  });
});

describe('Http1Connection against node:http', () => {
  let server: http.Server;
  let port: number;
  const sockets = new Set<string>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      sockets.add(`${req.socket.remotePort}`);
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const echo = JSON.stringify({ method: req.method, url: req.url, key: req.headers['idempotency-key'] ?? null, body });
        if (req.url === '/chunked') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(echo.slice(0, 5));
          res.end(echo.slice(5));
        } else if (req.url === '/close') {
          res.writeHead(503, { connection: 'close', 'content-type': 'application/json' });
          res.end(echo);
        } else {
          res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(echo) });
          res.end(echo);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends requests one after another on one socket, and connects again after the server closed it', async () => {
    const c = new Http1Connection('127.0.0.1', port);
    sockets.clear();
    const first = await c.request({ method: 'POST', path: '/orders', headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' }, body: '{"n":1}' }, true);
    expect(first).toEqual({ status: 201, bytes: first.bytes, body: JSON.stringify({ method: 'POST', url: '/orders', key: 'k-1', body: '{"n":1}' }) });
    const chunked = await c.request({ method: 'GET', path: '/chunked', headers: {} }, true);
    expect(JSON.parse(chunked.body!)).toMatchObject({ method: 'GET', url: '/chunked' });
    expect(sockets.size).toBe(1);
    const closing = await c.request({ method: 'GET', path: '/close', headers: {} }, false);
    expect(closing).toMatchObject({ status: 503, body: null });
    expect(closing.bytes).toBeGreaterThan(0);
    const after = await c.request({ method: 'GET', path: '/again', headers: {} }, true);
    expect(JSON.parse(after.body!)).toMatchObject({ url: '/again' });
    expect(sockets.size).toBe(2);
    c.close();
  });

  it('refuses a second request while one is in flight, and fails one whose socket cannot connect', async () => {
    const c = new Http1Connection('127.0.0.1', port);
    const first = c.request({ method: 'GET', path: '/', headers: {} }, false);
    await expect(c.request({ method: 'GET', path: '/', headers: {} }, false)).rejects.toThrow(/already in flight/);
    await first;
    c.close();
    const closed = new http.Server();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(new Http1Connection('127.0.0.1', freePort).request({ method: 'GET', path: '/', headers: {} }, false)).rejects.toThrow(/ECONNREFUSED/);
  });
});
