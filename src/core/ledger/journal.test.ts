import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { bytesToHex, concatHex, hexToBytes, keccak256, numberToHex, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  decodeJournal,
  encodeJournal,
  journalPayloadHash,
  JournalDecodeError,
  JournalEncodeError,
  MAX_JOURNAL_OPERATIONS,
  MAX_JOURNAL_PAYLOAD_BYTES,
  nextJournalCommitment,
  type JournalBatch,
  type JournalDecodeReason,
  type JournalOperation,
} from './journal.ts';
import { CREDIT_REASONS, MATCH_KINDS, outcomeAsset, type Account, type Credit, type LedgerOperation, type Match } from './types.ts';
import { replayable } from '../../../test/support/property.ts';

const U64 = (1n << 64n) - 1n;
const U128 = (1n << 128n) - 1n;
const U256 = (1n << 256n) - 1n;
const I128_MIN = -(1n << 127n);
const I128_MAX = (1n << 127n) - 1n;

const addr = (c: string): Account => `0x${c.repeat(40 / c.length)}` as Account;
const A1 = addr('1');
const A2 = addr('2');
const A3 = addr('3');

// docs/ledger-journal.md "Worked example".
const EXAMPLE: JournalBatch = {
  nonce: 3n,
  operations: [
    { type: 'credit', credit: { account: A1, id: 0n, delta: 1_000_000_000n, reason: CREDIT_REASONS.SIGNUP_GRANT } },
    {
      type: 'match',
      match: { maker: A2, taker: A3, marketId: 7n, side: 0, kind: MATCH_KINDS.MINT, shares: 40n, priceBps: 6000, fee: 2400n },
    },
    {
      type: 'supplement',
      ofNonce: 1n,
      operation: { type: 'credit', credit: { account: A2, id: 0n, delta: 1_000_000_000n, reason: CREDIT_REASONS.SIGNUP_GRANT } },
    },
  ],
};
const EXAMPLE_HEX: Hex = concatHex([
  '0x504d4a35', // magic "PMJ5"
  '0x01', // version
  '0x0000000000000003', // nonce 3
  '0x03', // 3 accounts
  '0x01', // 1 asset
  '0x03', // 3 operations
  A1,
  A2,
  A3,
  '0x00', // asset 0
  '0x01000080a8d6b90701', // credit: account 0, asset 0, zigzag(1e9) = 2e9, SIGNUP_GRANT
  '0x020102070228f02ee012', // match: maker 1, taker 2, market 7, kind MINT side 0, 40 shares, 6000 bps, fee 2400
  '0x0301' + '01010080a8d6b90701', // supplement of batch 1: credit account 1, asset 0, 1e9, SIGNUP_GRANT
].map((h) => h as Hex));
const EXAMPLE_PAYLOAD_HASH = '0x4b5bffd65205982fe5d62e316af3d5ef6753fecd3711f461a193210e6ec0edc8';
const ZERO32 = `0x${'00'.repeat(32)}` as Hex;
const EXAMPLE_COMMITMENT_FROM_ZERO = '0x754238a417215d04c02f8cc0331e30e8d849de848f23e6051e32e7af3e1d919b';

// ---------------------------------------------------------------------------------------------
// A naive reference encoder written from docs/ledger-journal.md, and a raw assembler for hand-made
// (possibly invalid) payloads. Neither validates anything.

function leb(v: bigint): number[] {
  const out: number[] = [];
  do {
    const low = Number(v % 128n);
    v /= 128n;
    out.push(v > 0n ? low + 128 : low);
  } while (v > 0n);
  return out;
}
const zigzag = (d: bigint): bigint => (d >= 0n ? 2n * d : -2n * d - 1n);
const addrBytes = (a: string): number[] => Array.from(hexToBytes(a as Hex));

interface Raw {
  nonce?: bigint;
  magic?: number[];
  version?: number;
  accounts?: string[];
  assets?: bigint[];
  records: number[][];
  counts?: [number, number, number];
}
function assemble(p: Raw): Uint8Array {
  const accounts = p.accounts ?? [];
  const assets = p.assets ?? [];
  const counts = p.counts ?? [accounts.length, assets.length, p.records.length];
  const nonce = p.nonce ?? 3n;
  const bytes = [
    ...(p.magic ?? [0x50, 0x4d, 0x4a, 0x35]),
    p.version ?? 1,
    ...Array.from({ length: 8 }, (_, i) => Number((nonce >> BigInt(56 - 8 * i)) & 0xffn)),
    ...counts.flatMap((c) => leb(BigInt(c))),
    ...accounts.flatMap(addrBytes),
    ...assets.flatMap(leb),
    ...p.records.flat(),
  ];
  return Uint8Array.from(bytes);
}
const creditRec = (acct: number, asset: number, delta: bigint, reason: number): number[] => [1, ...leb(BigInt(acct)), ...leb(BigInt(asset)), ...leb(zigzag(delta)), reason];
const matchRec = (maker: number, taker: number, market: bigint, sideKind: number, shares: bigint, price: number, fee: bigint): number[] => [
  2,
  ...leb(BigInt(maker)),
  ...leb(BigInt(taker)),
  ...leb(market),
  sideKind,
  ...leb(shares),
  ...leb(BigInt(price)),
  ...leb(fee),
];
const supplementRec = (ofNonce: bigint, inner: number[]): number[] => [3, ...leb(ofNonce), ...inner];

function referenceEncode(batch: JournalBatch): Uint8Array {
  const flat = (op: JournalOperation): LedgerOperation[] => (op.type === 'supplement' ? [op.operation] : [op]);
  const inner = batch.operations.flatMap(flat);
  const accounts = [...new Set(inner.flatMap((o) => (o.type === 'credit' ? [o.credit.account] : [o.match.maker, o.match.taker])))].sort();
  const assets = [...new Set(inner.flatMap((o) => (o.type === 'credit' ? [o.credit.id] : [])))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const record = (op: JournalOperation): number[] => {
    if (op.type === 'credit') return creditRec(accounts.indexOf(op.credit.account), assets.indexOf(op.credit.id), op.credit.delta, op.credit.reason);
    if (op.type === 'match') {
      const m = op.match;
      return matchRec(accounts.indexOf(m.maker), accounts.indexOf(m.taker), m.marketId, m.kind * 2 + m.side, m.shares, m.priceBps, m.fee);
    }
    return supplementRec(op.ofNonce, record(op.operation));
  };
  return assemble({ nonce: batch.nonce, accounts, assets, records: batch.operations.map(record) });
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Bigints in min..max, drawn often at and next to the bounds and among small values (one- and two-byte varints). */
const bounded = (min: bigint, max: bigint): fc.Arbitrary<bigint> => {
  const edges = [...new Set([min, max, min + 1n, max - 1n])].filter((v) => v >= min && v <= max);
  const small = min + 300n < max ? min + 300n : max;
  return fc.oneof(fc.constantFrom(...edges), fc.bigInt({ min, max }), fc.bigInt({ min, max: small }));
};

const accountArb: fc.Arbitrary<Account> = fc.oneof(
  fc.constantFrom(A1, A2, A3, addr('0000000000000000000000000000000000000001'), addr('f'), addr('8')),
  fc
    .uint8Array({ minLength: 20, maxLength: 20 })
    .filter((b) => b.some((x) => x !== 0))
    .map((b) => bytesToHex(b) as Account),
);
const assetArb = fc.oneof(
  fc.constant(0n),
  fc.tuple(bounded(1n, U64), fc.constantFrom<0 | 1>(0, 1)).map(([m, s]) => outcomeAsset(m, s)),
  bounded(0n, U256),
);
const creditArb: fc.Arbitrary<Credit> = fc.record({
  account: accountArb,
  id: assetArb,
  delta: fc.oneof(bounded(I128_MIN, I128_MAX), fc.bigInt({ min: -1000n, max: 1000n })),
  reason: fc.constantFrom(...Object.values(CREDIT_REASONS)),
});
const matchArb: fc.Arbitrary<Match> = fc
  .record({
    maker: accountArb,
    taker: accountArb,
    marketId: bounded(1n, U64),
    side: fc.constantFrom<0 | 1>(0, 1),
    kind: fc.constantFrom(...Object.values(MATCH_KINDS)),
    shares: bounded(1n, U128),
    priceBps: fc.oneof(fc.constantFrom(1, 127, 128, 9999), fc.integer({ min: 1, max: 9999 })),
    fee: bounded(0n, U128),
  })
  .filter((m) => m.maker !== m.taker);
const ledgerOpArb: fc.Arbitrary<LedgerOperation> = fc.oneof(
  creditArb.map((credit) => ({ type: 'credit' as const, credit })),
  matchArb.map((match) => ({ type: 'match' as const, match })),
);
const batchArb: fc.Arbitrary<JournalBatch> = fc.oneof(bounded(1n, U64), fc.bigInt({ min: 1n, max: 5n })).chain((nonce) => {
  const opArb: fc.Arbitrary<JournalOperation> =
    nonce > 1n
      ? fc.oneof(
          ledgerOpArb,
          fc.record({ type: fc.constant('supplement' as const), ofNonce: bounded(1n, nonce - 1n), operation: ledgerOpArb }),
        )
      : ledgerOpArb;
  return fc.record({ nonce: fc.constant(nonce), operations: fc.array(opArb, { maxLength: 12 }) });
});

// ---------------------------------------------------------------------------------------------

/** The mutation invariant: a payload is either rejected with JournalDecodeError or is itself canonical. */
function rejectedOrCanonical(bytes: Uint8Array): 'rejected' | 'canonical' {
  let decoded: JournalBatch;
  try {
    decoded = decodeJournal(bytes);
  } catch (e) {
    if (!(e instanceof JournalDecodeError)) throw e;
    return 'rejected';
  }
  expect(bytesToHex(encodeJournal(decoded))).toBe(bytesToHex(bytes));
  return 'canonical';
}

function decodeFailure(bytes: Uint8Array): JournalDecodeError {
  try {
    decodeJournal(bytes);
  } catch (e) {
    if (e instanceof JournalDecodeError) return e;
    throw e;
  }
  throw new Error(`decoded a payload that should be rejected: ${bytesToHex(bytes)}`);
}
function expectRejected(bytes: Uint8Array, reason: JournalDecodeReason, offset?: number): void {
  const e = decodeFailure(bytes);
  expect(e.reason).toBe(reason);
  if (offset !== undefined) expect(e.offset).toBe(offset);
}
function expectEncodeRejected(batch: JournalBatch, reason: string, path: string): void {
  let error: unknown;
  try {
    encodeJournal(batch);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(JournalEncodeError);
  expect((error as JournalEncodeError).reason).toBe(reason);
  expect((error as JournalEncodeError).path).toBe(path);
}

const example = (): Uint8Array => hexToBytes(EXAMPLE_HEX);
const withOps = (nonce: bigint, ...operations: JournalOperation[]): JournalBatch => ({ nonce, operations });
const credit = (c: Partial<Credit> = {}): JournalOperation => ({ type: 'credit', credit: { account: A1, id: 0n, delta: 5n, reason: 1, ...c } });
const match = (m: Partial<Match> = {}): JournalOperation => ({
  type: 'match',
  match: { maker: A2, taker: A3, marketId: 7n, side: 0, kind: 1, shares: 40n, priceBps: 6000, fee: 0n, ...m },
});

describe('PMJ5 journal codec', () => {
  describe('worked example (docs/ledger-journal.md)', () => {
    it('encodes the documented batch to the documented bytes and back', () => {
      expect(bytesToHex(encodeJournal(EXAMPLE))).toBe(EXAMPLE_HEX);
      expect(EXAMPLE_HEX.length).toBe(2 + 2 * 107);
      expect(decodeJournal(example())).toEqual(EXAMPLE);
    });

    it('is the vector the docs show, and the docs annotate it byte for byte at the right offsets', () => {
      const doc = readFileSync(new URL('../../../docs/ledger-journal.md', import.meta.url), 'utf8');
      expect(doc.match(/^0x504d4a35[0-9a-f]*$/m)?.[0]).toBe(EXAMPLE_HEX);
      const annotated = doc.slice(doc.indexOf('offset  bytes'));
      let hex = '';
      for (const [, offset, bytes] of annotated.slice(0, annotated.indexOf('```')).matchAll(/^\s*(\d+) {2}((?:[0-9a-f]{2} )*[0-9a-f]{2}) {2}/gm)) {
        expect(Number(offset)).toBe(hex.length / 2);
        hex += bytes!.replaceAll(' ', '');
      }
      expect(`0x${hex}`).toBe(EXAMPLE_HEX);
      expect(doc).toContain(EXAMPLE_PAYLOAD_HASH);
      expect(doc).toContain(EXAMPLE_COMMITMENT_FROM_ZERO);
    });

    it('hashes and chains the documented payload', () => {
      expect(journalPayloadHash(example())).toBe(EXAMPLE_PAYLOAD_HASH);
      expect(journalPayloadHash(EXAMPLE_HEX)).toBe(EXAMPLE_PAYLOAD_HASH);
      expect(nextJournalCommitment(ZERO32, 3n, EXAMPLE_PAYLOAD_HASH)).toBe(EXAMPLE_COMMITMENT_FROM_ZERO);
    });

    it('rejects or re-encodes identically every single-byte flip, truncation and insertion of the example', () => {
      const bytes = example();
      let canonical = 0;
      for (let i = 0; i < bytes.length; i++) {
        for (let mask = 1; mask < 256; mask++) {
          const m = bytes.slice();
          m[i]! ^= mask;
          if (rejectedOrCanonical(m) === 'canonical') canonical++;
        }
      }
      // Flips that only change a value to another valid one (nonce, delta, amounts, reason, side/kind) stay canonical.
      expect(canonical).toBeGreaterThan(0);
      for (let len = 0; len < bytes.length; len++) expect(rejectedOrCanonical(bytes.slice(0, len))).toBe('rejected');
      for (let i = 0; i <= bytes.length; i += 3) {
        for (let b = 0; b < 256; b += 5) {
          rejectedOrCanonical(Uint8Array.from([...bytes.slice(0, i), b, ...bytes.slice(i)]));
        }
      }
    });
  });

  describe('round trips (fuzz)', () => {
    it('decode(encode(batch)) deep-equals the batch, and encode matches the reference encoder', () => {
      fc.assert(
        fc.property(batchArb, (batch) => {
          const payload = encodeJournal(batch);
          expect(bytesToHex(payload)).toBe(bytesToHex(referenceEncode(batch)));
          expect(decodeJournal(payload)).toEqual(batch);
        }),
        replayable({ numRuns: 400 }),
      );
    });

    it('encode(decode(payload)) is the payload byte for byte', () => {
      fc.assert(
        fc.property(batchArb, (batch) => {
          const payload = encodeJournal(batch);
          expect(encodeJournal(decodeJournal(payload))).toEqual(payload);
        }),
        replayable({ numRuns: 200 }),
      );
    });
  });

  describe('mutations (fuzz)', () => {
    const withPayload = batchArb.map((b) => encodeJournal(b));

    it('a flipped byte is rejected or is itself canonical', () => {
      fc.assert(
        fc.property(withPayload, fc.nat(), fc.integer({ min: 1, max: 255 }), (p, at, mask) => {
          const m = p.slice();
          m[at % m.length]! ^= mask;
          rejectedOrCanonical(m);
        }),
        replayable({ numRuns: 500 }),
      );
    });

    it('a truncated payload is always rejected', () => {
      fc.assert(
        fc.property(withPayload, fc.nat(), (p, len) => {
          expect(rejectedOrCanonical(p.slice(0, len % p.length))).toBe('rejected');
        }),
        replayable({ numRuns: 300 }),
      );
    });

    it('an appended byte is always rejected', () => {
      fc.assert(
        fc.property(withPayload, fc.integer({ min: 0, max: 255 }), (p, b) => {
          expectRejected(Uint8Array.from([...p, b]), 'trailing-bytes', p.length);
        }),
        replayable({ numRuns: 200 }),
      );
    });

    it('spliced random bytes are rejected or form a canonical payload', () => {
      fc.assert(
        fc.property(withPayload, fc.nat(), fc.nat(8), fc.uint8Array({ maxLength: 24 }), (p, at, drop, insert) => {
          const i = at % (p.length + 1);
          rejectedOrCanonical(Uint8Array.from([...p.slice(0, i), ...insert, ...p.slice(i + drop)]));
        }),
        replayable({ numRuns: 500 }),
      );
    });

    it('random garbage, bare or behind a valid header, only ever fails with JournalDecodeError', () => {
      const header = [0x50, 0x4d, 0x4a, 0x35, 0x01, 0, 0, 0, 0, 0, 0, 0, 9];
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (garbage, prefixed) => {
          rejectedOrCanonical(prefixed ? Uint8Array.from([...header, ...garbage]) : garbage);
        }),
        replayable({ numRuns: 1000 }),
      );
    });
  });

  describe('rejects malformed payloads with a reason', () => {
    const accts = [A1, A2, A3];
    const valid = (): Raw => ({ accounts: accts, assets: [0n], records: [creditRec(0, 0, 1n, 1), matchRec(1, 2, 7n, 2, 40n, 6000, 0n)] });

    it('accepts the hand-assembled baseline', () => {
      expect(decodeJournal(assemble(valid())).operations).toHaveLength(2);
    });

    it('wrong magic or an unknown version', () => {
      expectRejected(assemble({ ...valid(), magic: [0x50, 0x4d, 0x4a, 0x34] }), 'bad-magic', 0);
      expectRejected(assemble({ ...valid(), version: 2 }), 'unknown-version', 4);
      expectRejected(assemble({ ...valid(), version: 0 }), 'unknown-version', 4);
      expectRejected(Uint8Array.of(), 'truncated', 0);
      expectRejected(Uint8Array.of(0x50, 0x4d), 'truncated', 0);
    });

    it('a batch nonce of 0', () => {
      expectRejected(assemble({ ...valid(), nonce: 0n }), 'out-of-range', 5);
    });

    it('a non-minimal varint anywhere', () => {
      const b = example();
      // account count 3 written as 0x83 0x00
      expectRejected(Uint8Array.from([...b.slice(0, 13), 0x83, 0x00, ...b.slice(14)]), 'non-minimal-varint', 13);
      // asset 0 written as 0x80 0x00 (offset 16 + 60 = 76)
      expectRejected(Uint8Array.from([...b.slice(0, 76), 0x80, 0x00, ...b.slice(77)]), 'non-minimal-varint', 76);
      // fee 0 written as 0x80 0x00
      const m = matchRec(1, 2, 7n, 2, 40n, 6000, 0n);
      expectRejected(assemble({ ...valid(), records: [creditRec(0, 0, 1n, 1), [...m.slice(0, -1), 0x80, 0x00]] }), 'non-minimal-varint');
    });

    it('a varint longer than its type allows', () => {
      // marketId 2^64 (uint64 overflow)
      expectRejected(assemble({ ...valid(), records: [creditRec(0, 0, 1n, 1), matchRec(1, 2, 1n << 64n, 2, 40n, 6000, 0n)] }), 'out-of-range');
      // shares 2^128
      expectRejected(assemble({ ...valid(), records: [creditRec(0, 0, 1n, 1), matchRec(1, 2, 7n, 2, 1n << 128n, 6000, 0n)] }), 'out-of-range');
      // delta zigzag 2^128 (beyond int128)
      const big = [1, 0, 0, ...leb(1n << 128n), 1];
      expectRejected(assemble({ ...valid(), records: [big, matchRec(1, 2, 7n, 2, 40n, 6000, 0n)] }), 'out-of-range');
      // asset id 2^256
      expectRejected(assemble({ ...valid(), assets: [1n << 256n] }), 'out-of-range');
    });

    it('an unsorted or duplicate table entry', () => {
      expectRejected(assemble({ ...valid(), accounts: [A2, A1, A3] }), 'unsorted-table', 16 + 20);
      expectRejected(assemble({ ...valid(), accounts: [A1, A1, A3] }), 'duplicate-entry', 16 + 20);
      const records = [creditRec(0, 0, 1n, 1), creditRec(0, 1, 1n, 1), matchRec(1, 2, 7n, 2, 40n, 6000, 0n)];
      expectRejected(assemble({ accounts: accts, assets: [5n, 0n], records }), 'unsorted-table', 16 + 60 + 1);
      expectRejected(assemble({ accounts: accts, assets: [5n, 5n], records }), 'duplicate-entry', 16 + 60 + 1);
      expect(decodeJournal(assemble({ accounts: accts, assets: [0n, 5n], records })).operations).toHaveLength(3);
    });

    it('an unreferenced table entry', () => {
      expectRejected(assemble({ ...valid(), accounts: [A1, A2, A3, addr('4')] }), 'unreferenced-entry', 16 + 60);
      expectRejected(assemble({ ...valid(), assets: [0n, 1n] }), 'unreferenced-entry', 16 + 60 + 1);
      // an entry referenced only by a supplement counts as referenced
      const records = [creditRec(0, 0, 1n, 1), supplementRec(1n, matchRec(1, 2, 7n, 2, 40n, 6000, 0n))];
      expect(decodeJournal(assemble({ accounts: accts, assets: [0n], records })).operations[1]?.type).toBe('supplement');
      // an empty batch has empty tables
      expect(decodeJournal(assemble({ records: [] }))).toEqual({ nonce: 3n, operations: [] });
      expectRejected(assemble({ accounts: [A1], records: [] }), 'unreferenced-entry', 16);
    });

    it('the zero address in the account table', () => {
      expectRejected(assemble({ ...valid(), accounts: [addr('0'), A2, A3] }), 'zero-address', 16);
    });

    it('an index out of range', () => {
      expectRejected(assemble({ ...valid(), records: [creditRec(3, 0, 1n, 1), matchRec(1, 2, 7n, 2, 40n, 6000, 0n)] }), 'index-out-of-range', 16 + 60 + 1 + 1);
      expectRejected(assemble({ ...valid(), records: [creditRec(0, 1, 1n, 1), matchRec(1, 2, 7n, 2, 40n, 6000, 0n)] }), 'index-out-of-range');
      expectRejected(assemble({ ...valid(), records: [creditRec(0, 0, 1n, 1), matchRec(1, 9, 7n, 2, 40n, 6000, 0n)] }), 'index-out-of-range');
    });

    it('trailing bytes', () => {
      const b = example();
      expectRejected(Uint8Array.from([...b, 0x00]), 'trailing-bytes', b.length);
    });

    it('out-of-range price, side/kind, shares, market id and reason', () => {
      const withMatch = (m: number[]): Uint8Array => assemble({ ...valid(), records: [creditRec(0, 0, 1n, 1), m] });
      const matchAt = 16 + 60 + 1 + creditRec(0, 0, 1n, 1).length;
      expectRejected(withMatch(matchRec(1, 2, 7n, 2, 40n, 0, 0n)), 'out-of-range', matchAt + 6);
      expectRejected(withMatch(matchRec(1, 2, 7n, 2, 40n, 10_000, 0n)), 'out-of-range', matchAt + 6);
      expect(decodeJournal(withMatch(matchRec(1, 2, 7n, 5, 40n, 9999, 0n))).operations[1]).toMatchObject({ match: { kind: 2, side: 1, priceBps: 9999 } });
      expectRejected(withMatch(matchRec(1, 2, 7n, 8, 40n, 6000, 0n)), 'out-of-range', matchAt + 4); // kind 4
      expectRejected(withMatch(matchRec(1, 2, 7n, 0xff, 40n, 6000, 0n)), 'out-of-range', matchAt + 4);
      expectRejected(withMatch(matchRec(1, 2, 7n, 2, 0n, 6000, 0n)), 'out-of-range', matchAt + 5);
      expectRejected(withMatch(matchRec(1, 2, 0n, 2, 40n, 6000, 0n)), 'out-of-range', matchAt + 3);
      expectRejected(withMatch(matchRec(1, 1, 7n, 2, 40n, 6000, 0n)), 'self-match', matchAt + 2);
      expectRejected(assemble({ ...valid(), records: [creditRec(0, 0, 1n, 0), matchRec(1, 2, 7n, 2, 40n, 6000, 0n)] }), 'out-of-range', 16 + 60 + 1 + 4);
      expectRejected(assemble({ ...valid(), records: [creditRec(0, 0, 1n, 5), matchRec(1, 2, 7n, 2, 40n, 6000, 0n)] }), 'out-of-range');
    });

    it('an unknown record tag', () => {
      for (const tag of [0, 4, 0xff]) {
        expectRejected(assemble({ ...valid(), records: [creditRec(0, 0, 1n, 1), [tag, ...matchRec(1, 2, 7n, 2, 40n, 6000, 0n).slice(1)]] }), 'unknown-tag');
      }
    });

    it('a supplement of this or a later batch, of batch 0, or of another supplement', () => {
      const inner = matchRec(1, 2, 7n, 2, 40n, 6000, 0n);
      const at = 16 + 60 + 1 + creditRec(0, 0, 1n, 1).length;
      const withSupplement = (rec: number[]): Uint8Array => assemble({ ...valid(), nonce: 3n, records: [creditRec(0, 0, 1n, 1), rec] });
      expect(decodeJournal(withSupplement(supplementRec(2n, inner))).operations[1]).toMatchObject({ type: 'supplement', ofNonce: 2n });
      expectRejected(withSupplement(supplementRec(3n, inner)), 'supplement-nonce', at + 1);
      expectRejected(withSupplement(supplementRec(4n, inner)), 'supplement-nonce', at + 1);
      expectRejected(withSupplement(supplementRec(0n, inner)), 'supplement-nonce', at + 1);
      expectRejected(withSupplement(supplementRec(1n, supplementRec(1n, inner))), 'nested-supplement', at + 2);
      expectRejected(assemble({ ...valid(), nonce: 1n, records: [creditRec(0, 0, 1n, 1), supplementRec(1n, inner)] }), 'supplement-nonce');
    });

    it('counts that promise more than the payload holds, and oversize payloads', () => {
      expectRejected(assemble({ ...valid(), counts: [0xffff_ffff, 1, 2] }), 'truncated', 13);
      expectRejected(assemble({ ...valid(), counts: [3, 1, 3] }), 'truncated');
      expectRejected(assemble({ ...valid(), counts: [3, 1, MAX_JOURNAL_OPERATIONS + 1] }), 'too-large');
      // a count beyond uint32 is refused before any loop runs
      const b = assemble({ ...valid() });
      expectRejected(Uint8Array.from([...b.slice(0, 13), 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, ...b.slice(14)]), 'out-of-range', 13);
      expectRejected(new Uint8Array(MAX_JOURNAL_PAYLOAD_BYTES + 1), 'too-large', 0);
    });
  });

  describe('refuses to encode an invalid batch', () => {
    it('names the field and the rule', () => {
      expectEncodeRejected(withOps(0n), 'out-of-range', 'nonce');
      expectEncodeRejected(withOps(1n << 64n), 'out-of-range', 'nonce');
      expectEncodeRejected(withOps(3n, credit(), match({ priceBps: 10_000 })), 'out-of-range', 'operations[1].match.priceBps');
      expectEncodeRejected(withOps(3n, match({ priceBps: 0 })), 'out-of-range', 'operations[0].match.priceBps');
      expectEncodeRejected(withOps(3n, match({ priceBps: 1.5 })), 'out-of-range', 'operations[0].match.priceBps');
      expectEncodeRejected(withOps(3n, match({ side: 2 as 0 })), 'out-of-range', 'operations[0].match.side');
      expectEncodeRejected(withOps(3n, match({ kind: 4 as 0 })), 'out-of-range', 'operations[0].match.kind');
      expectEncodeRejected(withOps(3n, match({ shares: 0n })), 'out-of-range', 'operations[0].match.shares');
      expectEncodeRejected(withOps(3n, match({ shares: U128 + 1n })), 'out-of-range', 'operations[0].match.shares');
      expectEncodeRejected(withOps(3n, match({ fee: -1n })), 'out-of-range', 'operations[0].match.fee');
      expectEncodeRejected(withOps(3n, match({ marketId: 0n })), 'out-of-range', 'operations[0].match.marketId');
      expectEncodeRejected(withOps(3n, match({ taker: A2 })), 'self-match', 'operations[0].match.taker');
      expectEncodeRejected(withOps(3n, match({ maker: addr('0') })), 'zero-address', 'operations[0].match.maker');
      expectEncodeRejected(withOps(3n, credit({ account: addr('0') })), 'zero-address', 'operations[0].credit.account');
      expectEncodeRejected(withOps(3n, credit({ account: addr('A') })), 'bad-account', 'operations[0].credit.account');
      expectEncodeRejected(withOps(3n, credit({ delta: I128_MAX + 1n })), 'out-of-range', 'operations[0].credit.delta');
      expectEncodeRejected(withOps(3n, credit({ delta: I128_MIN - 1n })), 'out-of-range', 'operations[0].credit.delta');
      expectEncodeRejected(withOps(3n, credit({ id: -1n })), 'out-of-range', 'operations[0].credit.id');
      expectEncodeRejected(withOps(3n, credit({ reason: 9 as 1 })), 'out-of-range', 'operations[0].credit.reason');
    });

    it('refuses supplements of this or a later batch, and nested supplements', () => {
      const inner = credit() as LedgerOperation;
      expectEncodeRejected(withOps(3n, { type: 'supplement', ofNonce: 3n, operation: inner }), 'supplement-nonce', 'operations[0].ofNonce');
      expectEncodeRejected(withOps(3n, { type: 'supplement', ofNonce: 0n, operation: inner }), 'supplement-nonce', 'operations[0].ofNonce');
      const nested = { type: 'supplement', ofNonce: 1n, operation: inner } as unknown as LedgerOperation;
      expectEncodeRejected(withOps(3n, { type: 'supplement', ofNonce: 2n, operation: nested }), 'nested-supplement', 'operations[0].operation');
      expectEncodeRejected(withOps(3n, { type: 'swap' } as unknown as JournalOperation), 'unknown-type', 'operations[0].type');
    });
  });

  describe('journal commitment chain', () => {
    it('is keccak256 of prev ‖ uint64 nonce ‖ payloadHash, packed', () => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), bounded(0n, U64), fc.uint8Array({ minLength: 32, maxLength: 32 }), (p, nonce, h) => {
          const prev = bytesToHex(p);
          const hash = bytesToHex(h);
          expect(nextJournalCommitment(prev, nonce, hash)).toBe(keccak256(concatHex([prev, numberToHex(nonce, { size: 8 }), hash])));
        }),
        replayable({ numRuns: 100 }),
      );
    });

    it('refuses inputs of the wrong width', () => {
      expect(() => nextJournalCommitment('0x00', 1n, EXAMPLE_PAYLOAD_HASH)).toThrow(RangeError);
      expect(() => nextJournalCommitment(ZERO32, 1n, '0x1234')).toThrow(RangeError);
      expect(() => nextJournalCommitment(ZERO32, 1n << 64n, EXAMPLE_PAYLOAD_HASH)).toThrow(RangeError);
    });
  });
});
