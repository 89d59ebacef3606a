import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isProblemError } from '../errors.ts';
import { costOf, LedgerBalances, movementsOf } from './engine.ts';
import { COLLATERAL_ASSET, CREDIT_REASONS, MATCH_KINDS, outcomeAsset, SUPPLY_ACCOUNT, type Account, type LedgerOperation } from './types.ts';
import { replayable } from '../../../test/support/property.ts';

const FEE: Account = '0x00000000000000000000000000000000000000fe';
const ACCOUNTS: Account[] = ['0x1111111111111111111111111111111111111111', '0x2222222222222222222222222222222222222222', '0x3333333333333333333333333333333333333333'];
const [A, B] = ACCOUNTS as [Account, Account, Account];

const grant = (account: Account, delta: bigint, id = COLLATERAL_ASSET): LedgerOperation => ({ type: 'credit', credit: { account, id, delta, reason: CREDIT_REASONS.SIGNUP_GRANT } });

const opArb: fc.Arbitrary<LedgerOperation> = fc.oneof(
  fc.record({
    account: fc.constantFrom(...ACCOUNTS),
    id: fc.constantFrom(COLLATERAL_ASSET, outcomeAsset(1n, 0), outcomeAsset(1n, 1), outcomeAsset(2n, 1)),
    delta: fc.bigInt({ min: -5_000_000n, max: 50_000_000n }),
  }).map((c) => ({ type: 'credit' as const, credit: { ...c, reason: CREDIT_REASONS.ADJUSTMENT } })),
  fc
    .record({
      pair: fc.shuffledSubarray(ACCOUNTS, { minLength: 2, maxLength: 2 }),
      marketId: fc.constantFrom(1n, 2n),
      side: fc.constantFrom(0 as const, 1 as const),
      kind: fc.constantFrom(MATCH_KINDS.TRANSFER, MATCH_KINDS.MINT, MATCH_KINDS.MERGE),
      shares: fc.bigInt({ min: 1n, max: 20n }),
      priceBps: fc.integer({ min: 1, max: 9999 }),
      fee: fc.bigInt({ min: 0n, max: 5_000n }),
    })
    .map(({ pair, ...m }) => ({ type: 'match' as const, match: { ...m, maker: pair[0]!, taker: pair[1]! } })),
);

describe('ledger engine', () => {
  it('keeps every asset summing to zero, never leaves a user negative, and changes nothing on a refusal', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const ledger = new LedgerBalances();
        for (const op of ops) {
          const before = JSON.stringify(ledger.entries(), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
          try {
            ledger.apply(op, FEE);
          } catch (err) {
            if (!isProblemError(err) || err.code !== 'LEDGER_INSUFFICIENT_BALANCE') throw err;
            expect(JSON.stringify(ledger.entries(), (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).toBe(before);
          }
          const assets = new Set(ledger.entries().map((e) => e.assetId));
          for (const id of assets) expect(ledger.total(id)).toBe(0n);
          for (const e of ledger.entries()) if (e.account !== SUPPLY_ACCOUNT) expect(e.balance >= 0n).toBe(true);
        }
      }),
      replayable({ numRuns: 300 }),
    );
  });

  it('answers what a ledger keyed by strings answers: the touched balances in their order, and the same refusals', () => {
    // The engine as first written: one Map keyed by `${account}:${asset}`.
    class Reference {
      readonly balances = new Map<string, bigint>();
      apply(op: LedgerOperation): { account: Account; assetId: bigint; balance: bigint }[] {
        const next = new Map<string, { account: Account; assetId: bigint; balance: bigint }>();
        const entry = (account: Account, assetId: bigint) => next.get(`${account}:${assetId}`) ?? { account, assetId, balance: this.balances.get(`${account}:${assetId}`) ?? 0n };
        for (const mv of movementsOf(op, FEE)) {
          const [from, to] = [entry(mv.from, mv.id), entry(mv.to, mv.id)];
          next.set(`${mv.from}:${mv.id}`, { ...from, balance: from.balance - mv.value });
          next.set(`${mv.to}:${mv.id}`, { ...to, balance: to.balance + mv.value });
        }
        if ([...next.values()].some((e) => e.account !== SUPPLY_ACCOUNT && e.balance < 0n)) throw new Error('negative');
        for (const [k, e] of next) if (e.balance === 0n) this.balances.delete(k);
        else this.balances.set(k, e.balance);
        return [...next.values()];
      }
    }
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const ledger = new LedgerBalances();
        const reference = new Reference();
        for (const op of ops) {
          const expected = (() => {
            try {
              return reference.apply(op);
            } catch {
              return 'refused';
            }
          })();
          const got = (() => {
            try {
              return ledger.apply(op, FEE);
            } catch {
              return 'refused';
            }
          })();
          expect(got).toEqual(expected);
        }
        const held = [...reference.balances].map(([k, balance]) => ({ key: k, balance }));
        expect(ledger.entries().map((e) => ({ key: `${e.account}:${e.assetId}`, balance: e.balance })).sort((a, b) => a.key.localeCompare(b.key))).toEqual(held.sort((a, b) => a.key.localeCompare(b.key)));
      }),
      replayable({ numRuns: 300 }),
    );
  });

  it('settles the three match kinds as documented', () => {
    const ledger = new LedgerBalances();
    ledger.apply(grant(A, 10_000_000n), FEE);
    ledger.apply(grant(B, 10_000_000n), FEE);
    const yes = outcomeAsset(7n, 0);
    const no = outcomeAsset(7n, 1);
    // MINT: A buys 10 Yes at 60%, B buys 10 No at 40%; B pays a 50-unit fee.
    ledger.apply({ type: 'match', match: { maker: A, taker: B, marketId: 7n, side: 0, kind: MATCH_KINDS.MINT, shares: 10n, priceBps: 6000, fee: 50n } }, FEE);
    expect([ledger.get(A, COLLATERAL_ASSET), ledger.get(B, COLLATERAL_ASSET), ledger.get(FEE, COLLATERAL_ASSET)]).toEqual([10_000_000n - 6_000_000n, 10_000_000n - 4_000_000n - 50n, 50n]);
    expect([ledger.get(A, yes), ledger.get(B, no), ledger.get(SUPPLY_ACCOUNT, yes), ledger.get(SUPPLY_ACCOUNT, no)]).toEqual([10n, 10n, -10n, -10n]);
    // TRANSFER: A sells 4 Yes to B at 55%.
    ledger.apply({ type: 'match', match: { maker: A, taker: B, marketId: 7n, side: 0, kind: MATCH_KINDS.TRANSFER, shares: 4n, priceBps: 5500, fee: 0n } }, FEE);
    expect([ledger.get(A, yes), ledger.get(B, yes), ledger.get(A, COLLATERAL_ASSET)]).toEqual([6n, 4n, 4_000_000n + costOf(4n, 5500)]);
    // MERGE: A sells 4 Yes at 50% and B sells 4 No at 50%: the complete sets return 4 × 1.000000 from the supply.
    const [aBefore, bBefore] = [ledger.get(A, COLLATERAL_ASSET), ledger.get(B, COLLATERAL_ASSET)];
    ledger.apply({ type: 'match', match: { maker: A, taker: B, marketId: 7n, side: 0, kind: MATCH_KINDS.MERGE, shares: 4n, priceBps: 5000, fee: 0n } }, FEE);
    expect([ledger.get(A, yes), ledger.get(B, no), ledger.get(SUPPLY_ACCOUNT, yes), ledger.get(SUPPLY_ACCOUNT, no)]).toEqual([2n, 6n, -6n, -6n]);
    expect([ledger.get(A, COLLATERAL_ASSET) - aBefore, ledger.get(B, COLLATERAL_ASSET) - bBefore]).toEqual([2_000_000n, 2_000_000n]);
  });

  it('refuses an operation that would leave a user negative', () => {
    const ledger = new LedgerBalances();
    ledger.apply(grant(A, 1_000n), FEE);
    expect(() => ledger.apply({ type: 'match', match: { maker: A, taker: B, marketId: 1n, side: 0, kind: MATCH_KINDS.TRANSFER, shares: 1n, priceBps: 5000, fee: 0n } }, FEE)).toThrow(
      /would hold -1/,
    );
    expect(() => ledger.apply(grant(A, -1_001n), FEE)).toThrow(/LEDGER_INSUFFICIENT_BALANCE/);
    expect(ledger.get(A, COLLATERAL_ASSET)).toBe(1_000n);
  });

  it('refuses malformed operations before touching balances', () => {
    const ledger = new LedgerBalances();
    const m = { maker: A, taker: B, marketId: 1n, side: 0 as const, kind: MATCH_KINDS.MINT, shares: 1n, priceBps: 5000, fee: 0n };
    for (const bad of [{ ...m, priceBps: 0 }, { ...m, priceBps: 10_000 }, { ...m, taker: A }, { ...m, shares: 0n }, { ...m, marketId: 0n }, { ...m, maker: SUPPLY_ACCOUNT }]) {
      expect(() => ledger.apply({ type: 'match', match: bad }, FEE)).toThrow(/INVALID_LEDGER_OPERATION/);
    }
    expect(() => ledger.apply({ type: 'credit', credit: { account: A, id: 0n, delta: 1n, reason: 99 as never } }, FEE)).toThrow(/INVALID_LEDGER_OPERATION/);
  });

  it('lists movements in the contract event order, leaving out zero values', () => {
    const mv = movementsOf({ type: 'match', match: { maker: A, taker: B, marketId: 2n, side: 1, kind: MATCH_KINDS.TRANSFER, shares: 3n, priceBps: 2500, fee: 0n } }, FEE);
    expect(mv).toEqual([
      { from: A, to: B, id: outcomeAsset(2n, 1), value: 3n },
      { from: B, to: A, id: COLLATERAL_ASSET, value: 750_000n },
    ]);
    expect(movementsOf(grant(A, 0n), FEE)).toEqual([]);
  });
});
