// Every reason code of the participation release comes out of the gates for its documented condition
// (docs/participation.md "Reason codes"), and the first failing check wins.
import { describe, expect, it } from 'vitest';
import { claimVerdict, deploymentVerdict, memberVerdict, type ClaimFacts, type DeploymentFacts, type MemberFacts } from './gates.ts';
import { activeOn, laneOf } from './lane.ts';

const PM = 10n ** 18n;
const NOW = new Date('2026-11-24T12:00:00Z');
const DAY = 86_400_000;
const today = Math.floor(NOW.getTime() / DAY);

const deployment = (over: Partial<DeploymentFacts> = {}): DeploymentFacts => ({
  deployed: true,
  routeWired: true,
  mode: 'on',
  chainUp: true,
  quarantined: false,
  paused: false,
  inventoryWei: 1_000_000n * PM,
  lowWaterWei: 100_000n * PM,
  accountingValid: true,
  ...over,
});
const member = (over: Partial<MemberFacts> = {}): MemberFacts => ({
  isAgent: true,
  wallet: '0xaa',
  identity: null,
  requireIdentity: false,
  verifiedAt: new Date(NOW.getTime() - DAY),
  attestationMaxAgeMs: 365 * DAY,
  reputationKnown: true,
  now: NOW,
  ...over,
});
const claim = (over: Partial<ClaimFacts> = {}): ClaimFacts => ({
  now: NOW,
  creditedWei: 300n * PM,
  paidOnChainWei: 100n * PM,
  exhausted: false,
  lastPaidAt: null,
  cadenceMs: DAY,
  openIntent: null,
  recipient: '0xaa',
  inventoryWei: 1_000_000n * PM,
  ...over,
});

describe('deployment verdict', () => {
  it.each([
    [{ deployed: false }, 'not_deployed', 'PARTICIPATION_RELEASE_NOT_DEPLOYED'],
    [{ routeWired: false }, 'route_not_deployed', 'PARTICIPATION_RELEASE_ROUTE_NOT_DEPLOYED'],
    [{ mode: 'off' as const }, 'inactive', 'PARTICIPATION_RELEASE_INACTIVE'],
    [{ mode: 'retired' as const }, 'retired', 'PARTICIPATION_RELEASE_INACTIVE'],
    [{ chainUp: false }, 'degraded', 'PARTICIPATION_ROUTE_DEGRADED'],
    [{ quarantined: true }, 'quarantined', 'PARTICIPATION_ROUTE_QUARANTINED'],
    [{ paused: true }, 'payment_paused', 'PARTICIPATION_DISTRIBUTION_PAUSED'],
    [{ inventoryWei: 0n }, 'degraded', 'PARTICIPATION_MONEY_PATH_INCOMPLETE'],
    [{ accountingValid: false }, 'degraded', 'PARTICIPATION_LEDGER_ACCOUNTING_INVALID'],
  ])('%o is %s with %s and pays nothing', (over, state, code) => {
    expect(deploymentVerdict(deployment(over))).toEqual({ state, claimEnabled: false, reasonCode: code });
  });

  it('reports a low inventory but still pays what it holds', () => {
    expect(deploymentVerdict(deployment({ inventoryWei: 50n * PM }))).toEqual({ state: 'degraded', claimEnabled: true, reasonCode: 'PARTICIPATION_INVENTORY_LOW' });
    expect(deploymentVerdict(deployment())).toEqual({ state: 'active', claimEnabled: true, reasonCode: null });
  });

  it('answers the first failing check', () => {
    expect(deploymentVerdict(deployment({ routeWired: false, paused: true, chainUp: false })).reasonCode).toBe('PARTICIPATION_RELEASE_ROUTE_NOT_DEPLOYED');
    expect(deploymentVerdict(deployment({ quarantined: true, paused: true })).reasonCode).toBe('PARTICIPATION_ROUTE_QUARANTINED');
  });
});

describe('member verdict', () => {
  it.each([
    [{ isAgent: false, wallet: null }, 'unknown', 'AGENT_OPERATING_WALLET_NOT_LINKED'],
    [{ wallet: null }, 'not_linked', 'AGENT_OPERATING_WALLET_NOT_LINKED'],
    [{ requireIdentity: true }, 'inactive', 'CURRENT_IDENTITY_MEMBERSHIP_REQUIRED'],
    [{ verifiedAt: null }, 'inactive', 'ACTIVE_VERIFIED_IDENTITY_REQUIRED'],
    [{ verifiedAt: new Date(NOW.getTime() - 366 * DAY) }, 'inactive', 'PARTICIPATION_IDENTITY_ATTESTATION_REQUIRED'],
    [{ reputationKnown: false }, 'inactive', 'IDENTITY_INTEGRITY_UNKNOWN'],
  ])('%o is %s with %s', (over, status, code) => {
    const v = memberVerdict(member(over));
    expect(v.status).toBe(status);
    expect(v.refusal).toBe(code);
  });

  it('names the role from the identity: root, a linked wallet, or a linked agent when the root is another agent', () => {
    expect(memberVerdict(member()).role).toBe('root');
    expect(memberVerdict(member({ identity: { id: 'i', isRoot: true, rootBoundToAnotherAgent: false } })).role).toBe('root');
    expect(memberVerdict(member({ identity: { id: 'i', isRoot: false, rootBoundToAnotherAgent: false } })).role).toBe('linked_wallet');
    expect(memberVerdict(member({ identity: { id: 'i', isRoot: false, rootBoundToAnotherAgent: true } })).role).toBe('linked_agent');
    expect(memberVerdict(member({ requireIdentity: true, identity: { id: 'i', isRoot: true, rootBoundToAnotherAgent: false } })).status).toBe('active');
  });
});

describe('claim verdict', () => {
  it.each([
    [{ openIntent: { recipient: '0xaa' } }, 'PARTICIPATION_DISTRIBUTION_ALREADY_PREPARED'],
    [{ openIntent: { recipient: '0xbb' } }, 'PARTICIPATION_DISTRIBUTION_RECIPIENT_STALE'],
    [{ paidOnChainWei: 400n * PM }, 'PARTICIPATION_LEDGER_ACCOUNTING_INVALID'],
    [{ lastPaidAt: new Date(NOW.getTime() - DAY + 1) }, 'PARTICIPATION_CLAIM_CADENCE_ACTIVE'],
    [{ creditedWei: 0n, paidOnChainWei: 0n }, 'NO_PARTICIPATION_RELEASE_CREDITS'],
    [{ creditedWei: 0n, paidOnChainWei: 0n, exhausted: true }, 'NEW_PARTICIPATION_RELEASE_UNITS_EXHAUSTED'],
    [{ paidOnChainWei: 300n * PM }, 'PARTICIPATION_DISTRIBUTION_ZERO_DELTA'],
    [{ inventoryWei: 199n * PM }, 'PARTICIPATION_INVENTORY_LOW'],
  ])('%o is %s', (over, code) => {
    expect(claimVerdict(claim(over)).refusal).toBe(code);
  });

  it('pays the difference between everything credited and what the chain paid', () => {
    expect(claimVerdict(claim())).toEqual({ refusal: null, deltaWei: 200n * PM });
    expect(claimVerdict(claim({ lastPaidAt: new Date(NOW.getTime() - DAY) })).refusal).toBeNull();
  });
});

describe('lane', () => {
  it('is pending on the day of the first qualifying trade, active from the next for activeDays, then dormant', () => {
    expect(laneOf([], null, NOW, 7).state).toBe('not_activated');
    const pending = laneOf([today], new Date(today * DAY), NOW, 7);
    expect(pending).toMatchObject({ state: 'activation_pending', firstActivatedAt: null, nextCreditAt: new Date((today + 2) * DAY) });
    const active = laneOf([today - 3], new Date((today - 3) * DAY), NOW, 7);
    expect(active).toMatchObject({ state: 'active', firstActivatedAt: new Date((today - 2) * DAY), activeUntil: new Date((today + 5) * DAY), nextCreditAt: new Date((today + 1) * DAY) });
    expect(laneOf([today - 9], null, NOW, 7)).toMatchObject({ state: 'dormant', nextCreditAt: null });
  });

  it('credits the days after a qualifying day, through activeDays', () => {
    const q = [100];
    expect([100, 101, 107, 108].map((d) => activeOn(q, d, 7))).toEqual([false, true, true, false]);
    expect(activeOn([100, 105], 112, 7)).toBe(true);
  });
});
