import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayable } from '../../../test/support/property.ts';
import { MATCH_KINDS, SHARE_VALUE, type MatchKind } from '../ledger/types.ts';
import { legOfTrade, legsOfFill } from './legs.ts';
import { applyLeg, EMPTY_POSITION, settlementValue } from './position.ts';

describe('legs', () => {
  it('an automated trade is its trader’s: a buy pays cost and fees, a sell receives cost less fees', () => {
    const buy = legOfTrade({ trader: '0xAA', outcome: 1, isBuy: true, shares: 100n, cost: 60n, protocolFee: 1n, creatorFee: 2n });
    expect(buy).toEqual({ wallet: '0xaa', outcome: 1, isBuy: true, shares: 100n, cash: -63n, notional: 60n });
    const sell = legOfTrade({ trader: '0xAA', outcome: 1, isBuy: false, shares: 100n, cost: 60n, protocolFee: 1n, creatorFee: 2n });
    expect(sell).toEqual({ wallet: '0xaa', outcome: 1, isBuy: false, shares: 100n, cash: 57n, notional: 60n });
  });

  it('a fill of every kind moves exactly the ledger’s collateral: the two legs’ cash plus the fee is what the ledger moved to or from the supply', () => {
    const kinds = fc.constantFrom<MatchKind>(MATCH_KINDS.TRANSFER, MATCH_KINDS.MINT, MATCH_KINDS.MERGE, MATCH_KINDS.TAKER_SELLS);
    fc.assert(
      fc.property(kinds, fc.integer({ min: 1, max: 9_999 }), fc.bigInt({ min: 1n, max: 10n ** 6n }), fc.bigInt({ min: 0n, max: 10n ** 6n }), fc.integer({ min: 0, max: 1 }), (kind, priceBps, shares, fee, side) => {
        const { maker, taker } = legsOfFill({ maker: '0x01', taker: '0x02', side, kind, priceBps, shares, takerFee: fee });
        // MINT takes a complete set's price from the pair, MERGE pays it back; a transfer moves money between them.
        const set = shares * SHARE_VALUE;
        const net = maker.cash + taker.cash + fee;
        expect(net).toBe(kind === MATCH_KINDS.MINT ? -set : kind === MATCH_KINDS.MERGE ? set : 0n);
        expect(maker.shares).toBe(set);
        expect(taker.shares).toBe(set);
        if (kind === MATCH_KINDS.MINT || kind === MATCH_KINDS.MERGE) expect(taker.outcome).toBe(1 - side);
        else expect(taker.outcome).toBe(side);
        expect(maker.isBuy).toBe(kind === MATCH_KINDS.MINT || kind === MATCH_KINDS.TAKER_SELLS);
        expect(taker.isBuy).toBe(kind === MATCH_KINDS.MINT || kind === MATCH_KINDS.TRANSFER);
      }),
      replayable({ numRuns: 300 }),
    );
  });
});

describe('average cost', () => {
  it('buying then selling everything realizes exactly the cash: nothing is left in the basis', () => {
    const legs = fc.array(fc.record({ shares: fc.bigInt({ min: 1n, max: 10n ** 9n }), cash: fc.bigInt({ min: 1n, max: 10n ** 9n }) }), { minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(legs, fc.array(fc.bigInt({ min: 1n, max: 10n ** 9n }), { maxLength: 10 }), fc.bigInt({ min: 0n, max: 10n ** 9n }), (buys, partials, proceeds) => {
        let p = EMPTY_POSITION;
        let paid = 0n;
        let realized = 0n;
        for (const b of buys) {
          p = applyLeg(p, { isBuy: true, shares: b.shares, cash: -b.cash }).position;
          paid += b.cash;
        }
        let received = 0n;
        for (const s of partials) {
          if (s >= p.shares) break;
          const r = applyLeg(p, { isBuy: false, shares: s, cash: s });
          p = r.position;
          realized += r.realized;
          received += s;
          expect(p.basis).toBeGreaterThanOrEqual(0n);
        }
        const last = applyLeg(p, { isBuy: false, shares: p.shares, cash: proceeds });
        realized += last.realized;
        expect(last.position).toEqual({ shares: 0n, basis: 0n });
        expect(realized).toBe(received + proceeds - paid);
      }),
      replayable({ numRuns: 300 }),
    );
  });

  it('a sell of shares never bought here realizes all its proceeds', () => {
    expect(applyLeg(EMPTY_POSITION, { isBuy: false, shares: 5n, cash: 7n })).toEqual({ position: EMPTY_POSITION, realized: 7n });
  });

  it('settles a winning outcome at one unit a share, a losing one at zero, void at 1/n', () => {
    expect(settlementValue(10n, 0, 1, 2)).toBe(10n);
    expect(settlementValue(10n, 1, 1, 2)).toBe(0n);
    expect(settlementValue(10n, 2, 0, 3)).toBe(3n);
  });
});
