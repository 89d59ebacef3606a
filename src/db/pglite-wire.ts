/**
 * The frontend/backend protocol messages of a kept statement's run on PGlite, written and read here rather than by
 * PGlite's own serializer and parser (docs/orderbook.md "The protocol on PGlite"). PGlite reads every field of every
 * row by copying it into a buffer of its own and decoding that, and builds each message through private-field
 * accessors: a fifth of the order path's time on the embedded database. Here a bind is written into one buffer, and
 * the answer is read in place, each field decoded straight from the bytes the backend wrote.
 *
 * The results are those PGlite's query() gives (rows keyed by field name, values through the instance's parsers,
 * `command`, `rowCount`, `affectedRows` added up over the exchange), and a backend error is PGlite's DatabaseError
 * with the same fields (code, detail, constraint, ...).
 */
import { protocol, type Results } from '@electric-sql/pglite';

const BIND = 0x42; // 'B'
const DESCRIBE = 0x44; // 'D'
const EXECUTE = 0x45; // 'E'
const QUERY = 0x51; // 'Q'
const SYNC = Uint8Array.of(0x53, 0, 0, 0, 4); // 'S', length 4

/** Describe the unnamed portal, then execute it with no row limit. */
const DESCRIBE_EXECUTE = Uint8Array.of(DESCRIBE, 0, 0, 0, 6, 0x50, 0, EXECUTE, 0, 0, 0, 9, 0, 0, 0, 0, 0);

/** Writes protocol messages into one growing buffer. */
export class MessageWriter {
  private buf: Buffer;
  private at = 0;

  constructor(size = 16_384) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Bind (text parameters, text results), Describe and Execute of a prepared statement on the unnamed portal. */
  bindAndExecute(statement: string, values: readonly (string | null)[]): void {
    let size = 4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 + 2;
    for (const v of values) size += 4 + (v === null ? 0 : Buffer.byteLength(v));
    this.reserve(1 + size + DESCRIBE_EXECUTE.length);
    const b = this.buf;
    b[this.at] = BIND;
    b.writeInt32BE(size, this.at + 1);
    let at = this.at + 5;
    b[at++] = 0; // the unnamed portal
    at += b.write(statement, at, 'utf8');
    b[at++] = 0;
    b.writeInt16BE(0, at); // no parameter format codes: every parameter is text
    b.writeInt16BE(values.length, at + 2);
    at += 4;
    for (const v of values) {
      if (v === null) {
        b.writeInt32BE(-1, at);
        at += 4;
        continue;
      }
      const n = b.write(v, at + 4, 'utf8');
      b.writeInt32BE(n, at);
      at += 4 + n;
    }
    b.writeInt16BE(0, at); // no result format codes: every column is text
    at += 2;
    b.set(DESCRIBE_EXECUTE, at);
    this.at = at + DESCRIBE_EXECUTE.length;
  }

  /** A Query message (the simple protocol): for the statements that are not kept (transaction control). */
  query(text: string): void {
    const size = 4 + Buffer.byteLength(text) + 1;
    this.reserve(1 + size);
    this.buf[this.at] = QUERY;
    this.buf.writeInt32BE(size, this.at + 1);
    const n = this.buf.write(text, this.at + 5, 'utf8');
    this.buf[this.at + 5 + n] = 0;
    this.at += 1 + size;
  }

  sync(): void {
    this.reserve(SYNC.length);
    this.buf.set(SYNC, this.at);
    this.at += SYNC.length;
  }

  /** The messages written so far (a copy), and the writer emptied. */
  take(): Uint8Array {
    const out = Uint8Array.prototype.slice.call(this.buf, 0, this.at);
    this.at = 0;
    return out;
  }

  private reserve(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }
}

type Parsers = Record<number, (value: string, typeId: number) => unknown>;

const decoder = new TextDecoder();

/** PGlite's DatabaseError for an ErrorResponse's fields, as its own parser makes it. */
function databaseError(bytes: Uint8Array, start: number, end: number, length: number): Error {
  const fields: Record<string, string> = {};
  let at = start;
  while (at < end && bytes[at] !== 0) {
    const key = String.fromCharCode(bytes[at]!);
    const close = bytes.indexOf(0, at + 1);
    fields[key] = decoder.decode(bytes.subarray(at + 1, close));
    at = close + 1;
  }
  const err = new protocol.messages.DatabaseError(fields.M ?? 'unknown database error', length, 'error') as unknown as Error & Record<string, string | undefined>;
  const named: Record<string, string> = { S: 'severity', C: 'code', D: 'detail', H: 'hint', P: 'position', p: 'internalPosition', q: 'internalQuery', W: 'where', s: 'schema', t: 'table', c: 'column', d: 'dataType', n: 'constraint', F: 'file', L: 'line', R: 'routine' };
  for (const [key, name] of Object.entries(named)) err[name] = fields[key];
  return err;
}

/**
 * The results of one exchange's answer, one per statement that completed, in order; throws the first ErrorResponse
 * (the statements after it did not run: the backend skips to the Sync).
 */
export function readResults(bytes: Uint8Array, parsers: Parsers): Results[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const results: Results[] = [];
  let names: string[] = [];
  let types: number[] = [];
  let fields: { name: string; dataTypeID: number }[] = [];
  let rows: Record<string, unknown>[] = [];
  let affected = 0;
  let error: Error | null = null;
  let at = 0;
  while (at + 5 <= bytes.length) {
    const code = bytes[at]!;
    const length = view.getInt32(at + 1);
    const body = at + 5;
    const end = at + 1 + length;
    at = end;
    if (error) continue;
    switch (code) {
      case 0x54: {
        // RowDescription: name, table oid, column number, type oid, type size, type modifier, format
        const count = view.getInt16(body);
        names = new Array<string>(count);
        types = new Array<number>(count);
        fields = new Array(count);
        let p = body + 2;
        for (let i = 0; i < count; i++) {
          const close = bytes.indexOf(0, p);
          const name = decoder.decode(bytes.subarray(p, close));
          const type = view.getInt32(close + 7);
          names[i] = name;
          types[i] = type;
          fields[i] = { name, dataTypeID: type };
          p = close + 19;
        }
        break;
      }
      case 0x44: {
        // DataRow: each column's length (-1: null) and text
        const count = view.getInt16(body);
        const row: Record<string, unknown> = {};
        let p = body + 2;
        for (let i = 0; i < count; i++) {
          const n = view.getInt32(p);
          p += 4;
          if (n < 0) {
            row[names[i]!] = null;
            continue;
          }
          const text = decoder.decode(bytes.subarray(p, p + n));
          p += n;
          const parse = parsers[types[i]!];
          row[names[i]!] = parse ? parse(text, types[i]!) : text;
        }
        rows.push(row);
        break;
      }
      case 0x43: {
        // CommandComplete: "INSERT 0 5", "UPDATE 3", "SELECT 2", "BEGIN", ...
        const tag = decoder.decode(bytes.subarray(body, end - 1));
        const words = tag.split(' ');
        const command = words[0]!;
        const count = Number.parseInt(words[words.length - 1]!, 10);
        if (command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'COPY' || command === 'MERGE') affected += count;
        const result: Results = { rows, fields, command, affectedRows: affected } as Results;
        if (!Number.isNaN(count)) (result as { rowCount?: number }).rowCount = count;
        results.push(result);
        rows = [];
        fields = [];
        names = [];
        types = [];
        break;
      }
      case 0x45:
        error = databaseError(bytes, body, end, length);
        break;
      default:
        // ParseComplete, BindComplete, NoData, ReadyForQuery, notices, parameter statuses: nothing to keep.
        break;
    }
  }
  if (error) throw error;
  if (results.length === 0) results.push({ affectedRows: 0, rows: [], fields: [] } as Results);
  return results;
}
