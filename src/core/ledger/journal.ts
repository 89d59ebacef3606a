/**
 * PMJ5: the canonical binary payload of one journal batch (commitJournalBatch / JournalBatchCommitted),
 * with its public account and asset dictionaries. Pure: no I/O. docs/ledger-journal.md documents every
 * byte; decodeJournal accepts exactly the byte strings encodeJournal can produce and rejects the rest.
 */
import { encodePacked, keccak256, type Hex } from 'viem';
import {
  CREDIT_REASONS,
  MATCH_KINDS,
  MAX_MARKET_ID,
  SUPPLY_ACCOUNT,
  type Account,
  type Credit,
  type CreditReason,
  type LedgerOperation,
  type Match,
  type MatchKind,
} from './types.ts';

export type JournalOperation =
  | { type: 'credit'; credit: Credit }
  | { type: 'match'; match: Match }
  /** A restatement of an operation already applied in an earlier batch (e.g. history carried over from legacy mode); replayers apply nothing for it. */
  | { type: 'supplement'; ofNonce: bigint; operation: LedgerOperation };

export interface JournalBatch {
  /** uint64, ≥ 1: the batch nonce the payload is committed under. */
  nonce: bigint;
  operations: JournalOperation[];
}

/** ASCII "PMJ5", the first four bytes of every payload. */
export const JOURNAL_MAGIC = Uint8Array.of(0x50, 0x4d, 0x4a, 0x35);
export const JOURNAL_VERSION = 1;
/** Record tags: the first byte of every operation record. */
export const JOURNAL_TAGS = { CREDIT: 0x01, MATCH: 0x02, SUPPLEMENT: 0x03 } as const;
/** Bounds that keep a hostile count field from making the decoder allocate or loop without end. */
export const MAX_JOURNAL_PAYLOAD_BYTES = 16 * 1024 * 1024;
export const MAX_JOURNAL_OPERATIONS = 1_000_000;

const U32_MAX = 0xffff_ffffn;
const U64_MAX = (1n << 64n) - 1n;
const U128_MAX = (1n << 128n) - 1n;
const U256_MAX = (1n << 256n) - 1n;
const INT128_MIN = -(1n << 127n);
const INT128_MAX = (1n << 127n) - 1n;
const MAX_PRICE_BPS = 9_999;
/** magic (4) + version (1) + nonce (8). */
const FIXED_HEADER_BYTES = 13;
/** The shortest record (a credit: tag, account index, asset index, delta, reason — one byte each); bounds the operation count against the bytes left. */
const MIN_RECORD_BYTES = 5;
const ADDRESS_BYTES = 20;

const REASON_VALUES: ReadonlySet<number> = new Set(Object.values(CREDIT_REASONS));
const KIND_VALUES: ReadonlySet<number> = new Set(Object.values(MATCH_KINDS));
const ACCOUNT_RE = /^0x[0-9a-f]{40}$/;
const BYTES32_RE = /^0x[0-9a-fA-F]{64}$/;

export type JournalDecodeReason =
  | 'too-large'
  | 'bad-magic'
  | 'unknown-version'
  | 'truncated'
  | 'non-minimal-varint'
  | 'out-of-range'
  | 'unsorted-table'
  | 'duplicate-entry'
  | 'unreferenced-entry'
  | 'zero-address'
  | 'index-out-of-range'
  | 'unknown-tag'
  | 'self-match'
  | 'nested-supplement'
  | 'supplement-nonce'
  | 'trailing-bytes';

/** A payload that is not a canonical PMJ5 batch. `offset` is the byte where the offending field or entry starts. */
export class JournalDecodeError extends Error {
  override name = 'JournalDecodeError';
  readonly offset: number;
  readonly reason: JournalDecodeReason;
  constructor(offset: number, reason: JournalDecodeReason, detail: string) {
    super(`PMJ5 ${reason} at byte ${offset}: ${detail}`);
    this.offset = offset;
    this.reason = reason;
  }
}

export type JournalEncodeReason =
  | 'too-large'
  | 'out-of-range'
  | 'bad-account'
  | 'zero-address'
  | 'self-match'
  | 'unknown-type'
  | 'nested-supplement'
  | 'supplement-nonce';

/** A batch that has no PMJ5 encoding. `path` names the field, e.g. `operations[2].match.priceBps`. */
export class JournalEncodeError extends Error {
  override name = 'JournalEncodeError';
  readonly path: string;
  readonly reason: JournalEncodeReason;
  constructor(path: string, reason: JournalEncodeReason, detail: string) {
    super(`PMJ5 ${reason} at ${path}: ${detail}`);
    this.path = path;
    this.reason = reason;
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding

/**
 * The canonical PMJ5 payload of a batch. Amounts are as in types.ts (collateral in base units,
 * prices in bps, shares whole). Throws JournalEncodeError for a value outside its on-chain range or
 * any rule of docs/ledger-journal.md "Constraints".
 */
export function encodeJournal(batch: JournalBatch): Uint8Array {
  if (!isUint(batch.nonce, U64_MAX) || batch.nonce < 1n) {
    throw new JournalEncodeError('nonce', 'out-of-range', 'the batch nonce must be a bigint in 1..2^64-1');
  }
  const operations = batch.operations;
  if (!Array.isArray(operations)) throw new JournalEncodeError('operations', 'unknown-type', 'operations must be an array');
  if (operations.length > MAX_JOURNAL_OPERATIONS) {
    throw new JournalEncodeError('operations', 'too-large', `${operations.length} operations; at most ${MAX_JOURNAL_OPERATIONS}`);
  }

  const accounts = new Set<Account>();
  const assets = new Set<bigint>();
  operations.forEach((op, i) => collectOperation(op, `operations[${i}]`, batch.nonce, false, accounts, assets));

  const accountTable = [...accounts].sort(); // equal-length lowercase hex: string order is byte order
  const assetTable = [...assets].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const accountIndex = new Map(accountTable.map((a, i) => [a, i]));
  const assetIndex = new Map(assetTable.map((a, i) => [a, i]));

  const w = new Writer(FIXED_HEADER_BYTES + 3 + accountTable.length * ADDRESS_BYTES + operations.length * 16);
  w.bytes(JOURNAL_MAGIC);
  w.byte(JOURNAL_VERSION);
  for (let shift = 56n; shift >= 0n; shift -= 8n) w.byte(Number((batch.nonce >> shift) & 0xffn));
  w.varint(BigInt(accountTable.length));
  w.varint(BigInt(assetTable.length));
  w.varint(BigInt(operations.length));
  for (const account of accountTable) w.address(account);
  for (const asset of assetTable) w.varint(asset);

  const writeRecord = (op: JournalOperation): void => {
    if (op.type === 'credit') {
      const c = op.credit;
      w.byte(JOURNAL_TAGS.CREDIT);
      w.varint(BigInt(accountIndex.get(c.account)!));
      w.varint(BigInt(assetIndex.get(c.id)!));
      w.varint(c.delta >= 0n ? c.delta << 1n : ((-c.delta) << 1n) - 1n); // zigzag
      w.byte(c.reason);
    } else if (op.type === 'match') {
      const m = op.match;
      w.byte(JOURNAL_TAGS.MATCH);
      w.varint(BigInt(accountIndex.get(m.maker)!));
      w.varint(BigInt(accountIndex.get(m.taker)!));
      w.varint(m.marketId);
      w.byte((m.kind << 1) | m.side);
      w.varint(m.shares);
      w.varint(BigInt(m.priceBps));
      w.varint(m.fee);
    } else {
      w.byte(JOURNAL_TAGS.SUPPLEMENT);
      w.varint(op.ofNonce);
      writeRecord(op.operation);
    }
  };
  operations.forEach(writeRecord);

  const payload = w.finish();
  if (payload.length > MAX_JOURNAL_PAYLOAD_BYTES) {
    throw new JournalEncodeError('operations', 'too-large', `${payload.length} bytes; at most ${MAX_JOURNAL_PAYLOAD_BYTES}`);
  }
  return payload;
}

/** Validates one operation (throwing JournalEncodeError) and adds the accounts and assets it references. */
function collectOperation(
  op: JournalOperation | LedgerOperation,
  path: string,
  nonce: bigint,
  nested: boolean,
  accounts: Set<Account>,
  assets: Set<bigint>,
): void {
  const fail = (field: string, reason: JournalEncodeReason, detail: string): never => {
    throw new JournalEncodeError(`${path}${field}`, reason, detail);
  };
  if (op === null || typeof op !== 'object') return fail('', 'unknown-type', 'an operation must be an object');
  switch (op.type) {
    case 'credit': {
      const c = op.credit;
      checkAccount(c.account, `${path}.credit.account`);
      if (!isUint(c.id, U256_MAX)) fail('.credit.id', 'out-of-range', 'the asset id must be a bigint in 0..2^256-1');
      if (typeof c.delta !== 'bigint' || c.delta < INT128_MIN || c.delta > INT128_MAX) {
        fail('.credit.delta', 'out-of-range', 'delta must be a bigint in -2^127..2^127-1 (int128)');
      }
      if (!REASON_VALUES.has(c.reason)) fail('.credit.reason', 'out-of-range', `reason ${String(c.reason)} is not a CREDIT_REASONS value`);
      accounts.add(c.account);
      assets.add(c.id);
      return;
    }
    case 'match': {
      const m = op.match;
      checkAccount(m.maker, `${path}.match.maker`);
      checkAccount(m.taker, `${path}.match.taker`);
      if (m.maker === m.taker) fail('.match.taker', 'self-match', 'maker and taker must differ');
      if (!isUint(m.marketId, MAX_MARKET_ID) || m.marketId < 1n) fail('.match.marketId', 'out-of-range', 'marketId must be a bigint in 1..2^64-1');
      if (m.side !== 0 && m.side !== 1) fail('.match.side', 'out-of-range', 'side must be 0 or 1');
      if (!KIND_VALUES.has(m.kind)) fail('.match.kind', 'out-of-range', 'kind must be a MATCH_KINDS value (0..3)');
      if (!isUint(m.shares, U128_MAX) || m.shares < 1n) fail('.match.shares', 'out-of-range', 'shares must be a bigint in 1..2^128-1');
      if (!Number.isInteger(m.priceBps) || m.priceBps < 1 || m.priceBps > MAX_PRICE_BPS) {
        fail('.match.priceBps', 'out-of-range', 'priceBps must be an integer in 1..9999');
      }
      if (!isUint(m.fee, U128_MAX)) fail('.match.fee', 'out-of-range', 'fee must be a bigint in 0..2^128-1');
      accounts.add(m.maker);
      accounts.add(m.taker);
      return;
    }
    case 'supplement': {
      if (nested) fail('', 'nested-supplement', 'a supplement restates a credit or a match, never another supplement');
      if (!isUint(op.ofNonce, U64_MAX) || op.ofNonce < 1n || op.ofNonce >= nonce) {
        fail('.ofNonce', 'supplement-nonce', `ofNonce must be a bigint in 1..${nonce - 1n} (an earlier batch)`);
      }
      collectOperation(op.operation, `${path}.operation`, nonce, true, accounts, assets);
      return;
    }
    default:
      fail('.type', 'unknown-type', `unknown operation type ${JSON.stringify((op as { type: unknown }).type)}`);
  }
}

function checkAccount(account: unknown, path: string): void {
  if (typeof account !== 'string' || !ACCOUNT_RE.test(account)) {
    throw new JournalEncodeError(path, 'bad-account', 'an account is a lowercase 0x-prefixed 20-byte address');
  }
  if (account === SUPPLY_ACCOUNT) throw new JournalEncodeError(path, 'zero-address', 'the supply account cannot be a credit account, maker or taker');
}

const isUint = (v: unknown, max: bigint): v is bigint => typeof v === 'bigint' && v >= 0n && v <= max;

class Writer {
  private buf: Uint8Array;
  private len = 0;
  constructor(initial: number) {
    this.buf = new Uint8Array(Math.max(64, initial));
  }
  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b;
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  address(a: Account): void {
    this.ensure(ADDRESS_BYTES);
    for (let i = 0; i < ADDRESS_BYTES; i++) this.buf[this.len++] = parseInt(a.slice(2 + 2 * i, 4 + 2 * i), 16);
  }
  /** Unsigned LEB128, minimal: 7 bits per byte, least significant group first, high bit = more follows. */
  varint(v: bigint): void {
    if (v < 0x80n) return this.byte(Number(v));
    let rest = v;
    while (rest >= 0x80n) {
      this.byte(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    this.byte(Number(rest));
  }
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding

/**
 * The batch a canonical PMJ5 payload encodes; encodeJournal(decodeJournal(p)) is byte-for-byte p.
 * Throws JournalDecodeError (never anything else) for any payload encodeJournal could not have written.
 */
export function decodeJournal(payload: Uint8Array): JournalBatch {
  if (!(payload instanceof Uint8Array)) throw new TypeError('decodeJournal expects a Uint8Array');
  if (payload.length > MAX_JOURNAL_PAYLOAD_BYTES) {
    throw new JournalDecodeError(0, 'too-large', `${payload.length} bytes; at most ${MAX_JOURNAL_PAYLOAD_BYTES}`);
  }
  const r = new Reader(payload);

  const magic = r.take(JOURNAL_MAGIC.length, 'magic');
  if (!magic.every((b, i) => b === JOURNAL_MAGIC[i])) r.fail(0, 'bad-magic', 'the payload does not start with "PMJ5"');
  const version = r.byte('version');
  if (version !== JOURNAL_VERSION) r.fail(4, 'unknown-version', `version ${version}; this decoder reads version ${JOURNAL_VERSION}`);
  const nonceBytes = r.take(8, 'nonce');
  const nonce = nonceBytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
  if (nonce < 1n) r.fail(5, 'out-of-range', 'the batch nonce must be ≥ 1');

  const accountCount = r.count('account count');
  const assetCount = r.count('asset count');
  const countsAt = r.pos;
  const operationCount = r.count('operation count');
  if (operationCount > MAX_JOURNAL_OPERATIONS) r.fail(countsAt, 'too-large', `${operationCount} operations; at most ${MAX_JOURNAL_OPERATIONS}`);
  // Every entry and record needs at least this many bytes; checking up front keeps a forged count from looping.
  if (accountCount * ADDRESS_BYTES + assetCount + operationCount * MIN_RECORD_BYTES > r.remaining) {
    r.fail(FIXED_HEADER_BYTES, 'truncated', 'the counts need more bytes than the payload has');
  }

  const accounts: Account[] = [];
  const accountOffsets: number[] = [];
  let previous: Uint8Array | null = null;
  for (let i = 0; i < accountCount; i++) {
    const at = r.pos;
    const bytes = r.take(ADDRESS_BYTES, 'account');
    if (bytes.every((b) => b === 0)) r.fail(at, 'zero-address', 'the supply account is never referenced, so it is never in the table');
    if (previous) {
      const order = compareBytes(previous, bytes);
      if (order === 0) r.fail(at, 'duplicate-entry', `account ${i} repeats account ${i - 1}`);
      if (order > 0) r.fail(at, 'unsorted-table', `account ${i} sorts before account ${i - 1}`);
    }
    previous = bytes;
    accounts.push(toAccount(bytes));
    accountOffsets.push(at);
  }

  const assets: bigint[] = [];
  const assetOffsets: number[] = [];
  for (let i = 0; i < assetCount; i++) {
    const at = r.pos;
    const id = r.varint(U256_MAX, 'asset id');
    const prev = assets[i - 1];
    if (prev !== undefined && id === prev) r.fail(at, 'duplicate-entry', `asset ${i} repeats asset ${i - 1}`);
    if (prev !== undefined && id < prev) r.fail(at, 'unsorted-table', `asset ${i} sorts before asset ${i - 1}`);
    assets.push(id);
    assetOffsets.push(at);
  }

  const accountUsed = new Uint8Array(accountCount);
  const assetUsed = new Uint8Array(assetCount);
  const accountAt = (what: string): Account => {
    const i = r.index(accountCount, what);
    accountUsed[i] = 1;
    return accounts[i]!;
  };

  const readRecord = (nested: boolean): JournalOperation => {
    const at = r.pos;
    const tag = r.byte('record tag');
    if (tag === JOURNAL_TAGS.CREDIT) {
      const account = accountAt('credit account index');
      const assetIdx = r.index(assetCount, 'credit asset index');
      assetUsed[assetIdx] = 1;
      const zz = r.varint(U128_MAX, 'credit delta');
      const delta = zz & 1n ? -(zz >> 1n) - 1n : zz >> 1n;
      const reasonAt = r.pos;
      const reason = r.byte('credit reason');
      if (!REASON_VALUES.has(reason)) r.fail(reasonAt, 'out-of-range', `credit reason ${reason} is not a CREDIT_REASONS value`);
      return { type: 'credit', credit: { account, id: assets[assetIdx]!, delta, reason: reason as CreditReason } };
    }
    if (tag === JOURNAL_TAGS.MATCH) {
      const maker = accountAt('maker index');
      const takerAt = r.pos;
      const taker = accountAt('taker index');
      if (maker === taker) r.fail(takerAt, 'self-match', 'maker and taker are the same account');
      const marketAt = r.pos;
      const marketId = r.varint(MAX_MARKET_ID, 'marketId');
      if (marketId < 1n) r.fail(marketAt, 'out-of-range', 'marketId must be ≥ 1');
      const sideKindAt = r.pos;
      const sideKind = r.byte('side/kind');
      if (!KIND_VALUES.has(sideKind >> 1)) r.fail(sideKindAt, 'out-of-range', `side/kind byte ${sideKind}: kind must be 0..3 and the byte at most 7`);
      const sharesAt = r.pos;
      const shares = r.varint(U128_MAX, 'shares');
      if (shares < 1n) r.fail(sharesAt, 'out-of-range', 'shares must be ≥ 1');
      const priceAt = r.pos;
      const priceBps = Number(r.varint(BigInt(MAX_PRICE_BPS), 'priceBps'));
      if (priceBps < 1) r.fail(priceAt, 'out-of-range', 'priceBps must be in 1..9999');
      const fee = r.varint(U128_MAX, 'fee');
      const match: Match = { maker, taker, marketId, side: (sideKind & 1) as 0 | 1, kind: (sideKind >> 1) as MatchKind, shares, priceBps, fee };
      return { type: 'match', match };
    }
    if (tag === JOURNAL_TAGS.SUPPLEMENT) {
      if (nested) r.fail(at, 'nested-supplement', 'a supplement restates a credit or a match, never another supplement');
      const ofAt = r.pos;
      const ofNonce = r.varint(U64_MAX, 'supplement ofNonce');
      if (ofNonce < 1n || ofNonce >= nonce) r.fail(ofAt, 'supplement-nonce', `ofNonce ${ofNonce} is not an earlier batch (1..${nonce - 1n})`);
      const operation = readRecord(true) as LedgerOperation;
      return { type: 'supplement', ofNonce, operation };
    }
    return r.fail(at, 'unknown-tag', `record tag ${tag}; known tags are 1 (credit), 2 (match), 3 (supplement)`);
  };

  const operations: JournalOperation[] = [];
  for (let i = 0; i < operationCount; i++) operations.push(readRecord(false));
  if (r.remaining > 0) r.fail(r.pos, 'trailing-bytes', `${r.remaining} bytes after the last record`);

  const idleAccount = accountUsed.indexOf(0);
  if (idleAccount >= 0) r.fail(accountOffsets[idleAccount]!, 'unreferenced-entry', `account ${idleAccount} is referenced by no record`);
  const idleAsset = assetUsed.indexOf(0);
  if (idleAsset >= 0) r.fail(assetOffsets[idleAsset]!, 'unreferenced-entry', `asset ${idleAsset} is referenced by no record`);

  return { nonce, operations };
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  fail(offset: number, reason: JournalDecodeReason, detail: string): never {
    throw new JournalDecodeError(offset, reason, detail);
  }

  byte(what: string): number {
    if (this.pos >= this.buf.length) this.fail(this.pos, 'truncated', `the payload ends before the ${what}`);
    return this.buf[this.pos++]!;
  }

  take(n: number, what: string): Uint8Array {
    if (this.remaining < n) this.fail(this.pos, 'truncated', `the payload ends inside the ${what}`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A minimal unsigned LEB128 no greater than max; no more bytes are read than max can need. */
  varint(max: bigint, what: string): bigint {
    const start = this.pos;
    const maxBytes = varintBytes(max);
    let value = 0n;
    let shift = 0n;
    for (let n = 1; ; n++) {
      if (this.pos >= this.buf.length) this.fail(start, 'truncated', `the payload ends inside the ${what}`);
      const b = this.buf[this.pos++]!;
      value |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        if (b === 0 && n > 1) this.fail(start, 'non-minimal-varint', `the ${what} has a redundant final 0x00 byte`);
        break;
      }
      if (n >= maxBytes) this.fail(start, 'out-of-range', `the ${what} is longer than the ${maxBytes} bytes its maximum ${max} needs`);
      shift += 7n;
    }
    if (value > max) this.fail(start, 'out-of-range', `the ${what} ${value} exceeds ${max}`);
    return value;
  }

  /** A table size or operation count (uint32 at most; the size checks bound it further). */
  count(what: string): number {
    return Number(this.varint(U32_MAX, what));
  }

  /** An index into a table of `size` entries. */
  index(size: number, what: string): number {
    const at = this.pos;
    const i = Number(this.varint(U32_MAX, what));
    if (i >= size) this.fail(at, 'index-out-of-range', `the ${what} ${i} is not below the table size ${size}`);
    return i;
  }
}

const VARINT_BYTES = new Map<bigint, number>();
/** How many LEB128 bytes the largest value up to `max` needs. */
function varintBytes(max: bigint): number {
  let n = VARINT_BYTES.get(max);
  if (n === undefined) {
    n = Math.max(1, Math.ceil(max.toString(2).length / 7));
    VARINT_BYTES.set(max, n);
  }
  return n;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

const HEX_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const toAccount = (bytes: Uint8Array): Account => `0x${Array.from(bytes, (b) => HEX_BYTE[b]).join('')}`;

// ---------------------------------------------------------------------------------------------
// Commitments

/** The payloadHash argument of commitJournalBatch: keccak256 of the exact payload bytes. */
export function journalPayloadHash(payload: Uint8Array | Hex): Hex {
  return keccak256(payload);
}

/**
 * The contract's journalCommitment after a batch: keccak256(abi.encodePacked(prev bytes32, nonce uint64,
 * payloadHash bytes32)). `prev` is journalCommitment() before the batch.
 */
export function nextJournalCommitment(prev: Hex, nonce: bigint, payloadHash: Hex): Hex {
  if (!BYTES32_RE.test(prev)) throw new RangeError('prev must be a 0x-prefixed 32-byte hex string');
  if (!BYTES32_RE.test(payloadHash)) throw new RangeError('payloadHash must be a 0x-prefixed 32-byte hex string');
  if (!isUint(nonce, U64_MAX)) throw new RangeError('nonce must be a bigint in 0..2^64-1 (uint64)');
  return keccak256(encodePacked(['bytes32', 'uint64', 'bytes32'], [prev, nonce, payloadHash]));
}
