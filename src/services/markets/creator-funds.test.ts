import { describe, expect, it } from 'vitest';
import { bondStatus, marketBalanceStatus } from './creator-funds.ts';

describe('creator funds statuses', () => {
  it('marketBalance: zero when empty, else by the market state', () => {
    expect(marketBalanceStatus('open', 0n).status).toBe('zero');
    expect(marketBalanceStatus('open', 5n).status).toBe('too_early');
    expect(marketBalanceStatus('closed', 5n).status).toBe('pending_resolution');
    expect(marketBalanceStatus('human_voting', 5n).status).toBe('pending_resolution');
    expect(marketBalanceStatus('creator_proposal', 5n).status).toBe('challenge_window');
    expect(marketBalanceStatus('challenge', 5n).status).toBe('pending_resolution');
    expect(marketBalanceStatus('resolved', 5n).status).toBe('claimable');
    expect(marketBalanceStatus('void', 5n).status).toBe('claimable');
    expect(marketBalanceStatus('resolved', 0n, 5n).status).toBe('collected');
  });

  it('bond: none without one, syncing until confirmed, pending until resolved, then returnable', () => {
    expect(bondStatus('open', 0n, true)).toMatchObject({ status: 'none', reasonCode: 'not_created' });
    expect(bondStatus('open', 10n, false)).toMatchObject({ status: 'unknown', displayStatus: 'syncing', reasonCode: 'indexing_pending' });
    expect(bondStatus('open', 10n, true)).toMatchObject({ status: 'pending', displayStatus: 'pending' });
    expect(bondStatus('resolved', 10n, true)).toMatchObject({ status: 'returnable', displayStatus: 'ready', reasonCode: 'action_available' });
    expect(bondStatus('void', 10n, true)).toMatchObject({ status: 'returnable' });
    expect(bondStatus('resolved', 10n, true, { creatorSlashed: true })).toMatchObject({ status: 'unavailable', reasonCode: 'unavailable' });
    expect(bondStatus('resolved', 10n, true, { returned: true })).toMatchObject({ status: 'returned', displayStatus: 'returned', reasonCode: 'settled' });
  });
});
