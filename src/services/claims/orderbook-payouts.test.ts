import { describe, expect, it } from 'vitest';
import { COLLATERAL_ASSET, CREDIT_REASONS, outcomeAsset, SHARE_VALUE } from '../../core/ledger/types.ts';
import { payoutCredits } from './orderbook-payouts.ts';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const credits = (ops: ReturnType<typeof payoutCredits>) => ops.map((o) => (o.type === 'credit' ? [o.credit.account, o.credit.id, o.credit.delta, o.credit.reason] : null));

describe('order-book payout credits', () => {
  it('retires every share; a winning share pays SHARE_VALUE, a losing one nothing', () => {
    const ops = payoutCredits(7n, 2, [{ account: A, side: 1, shares: 3n }, { account: B, side: 0, shares: 5n }, { account: A, side: 0, shares: 2n }]);
    expect(credits(ops)).toEqual([
      [A, outcomeAsset(7n, 1), -3n, CREDIT_REASONS.PAYOUT],
      [B, outcomeAsset(7n, 0), -5n, CREDIT_REASONS.PAYOUT],
      [A, outcomeAsset(7n, 0), -2n, CREDIT_REASONS.PAYOUT],
      [A, COLLATERAL_ASSET, 3n * SHARE_VALUE, CREDIT_REASONS.PAYOUT],
    ]);
  });

  it('void pays every share half a SHARE_VALUE (the equal split of a binary book)', () => {
    const ops = payoutCredits(7n, 0, [{ account: A, side: 0, shares: 3n }, { account: A, side: 1, shares: 1n }, { account: B, side: 1, shares: 0n }]);
    expect(credits(ops).filter((c) => c![1] === COLLATERAL_ASSET)).toEqual([[A, COLLATERAL_ASSET, 2n * SHARE_VALUE, CREDIT_REASONS.PAYOUT]]);
    expect(ops).toHaveLength(3);
  });
});
