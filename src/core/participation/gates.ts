/**
 * Participation release gates (docs/participation.md "Reason codes"), pure: the deployment's state, the member's
 * status and the claim's refusal, each from facts the service reads, each refusal one of the spec's reason codes.
 * The order of the checks is the order of the tables in the doc: the first that fails is the answer.
 */
import type { ErrorCode } from '../error-codes.ts';

export type DeploymentState = 'not_deployed' | 'route_not_deployed' | 'inactive' | 'active' | 'payment_paused' | 'degraded' | 'quarantined' | 'retired';
export type MemberStatus = 'unknown' | 'not_linked' | 'inactive' | 'active';
export type MemberRole = 'root' | 'linked_wallet' | 'linked_agent';
export type ReleaseMode = 'on' | 'off' | 'retired';

export type ReasonCode = Extract<
  ErrorCode,
  | 'PARTICIPATION_RELEASE_NOT_DEPLOYED'
  | 'PARTICIPATION_RELEASE_ROUTE_NOT_DEPLOYED'
  | 'PARTICIPATION_RELEASE_INACTIVE'
  | 'PARTICIPATION_DISTRIBUTION_PAUSED'
  | 'PARTICIPATION_MONEY_PATH_INCOMPLETE'
  | 'PARTICIPATION_LEDGER_ACCOUNTING_INVALID'
  | 'PARTICIPATION_ROUTE_DEGRADED'
  | 'PARTICIPATION_ROUTE_QUARANTINED'
  | 'PARTICIPATION_INVENTORY_LOW'
  | 'ACTIVE_VERIFIED_IDENTITY_REQUIRED'
  | 'CURRENT_IDENTITY_MEMBERSHIP_REQUIRED'
  | 'AGENT_OPERATING_WALLET_NOT_LINKED'
  | 'IDENTITY_INTEGRITY_UNKNOWN'
  | 'NO_PARTICIPATION_RELEASE_CREDITS'
  | 'NEW_PARTICIPATION_RELEASE_UNITS_EXHAUSTED'
  | 'PARTICIPATION_CLAIM_CADENCE_ACTIVE'
  | 'PARTICIPATION_IDENTITY_ATTESTATION_REQUIRED'
  | 'PARTICIPATION_DISTRIBUTION_ZERO_DELTA'
  | 'PARTICIPATION_DISTRIBUTION_ALREADY_PREPARED'
  | 'PARTICIPATION_DISTRIBUTION_RECIPIENT_STALE'
  | 'PARTICIPATION_DISTRIBUTION_VOUCHER_EXPIRED'
  | 'PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH'
  | 'PARTICIPATION_DISTRIBUTION_FINALITY_PENDING'
>;

export interface DeploymentFacts {
  deployed: boolean;
  /** The distributor pays PM and takes vouchers of our operator key (else this service cannot sign for it). */
  routeWired: boolean;
  mode: ReleaseMode;
  chainUp: boolean;
  quarantined: boolean;
  paused: boolean;
  /** PM base units the distributor holds. */
  inventoryWei: bigint;
  /** Below it the route is degraded (still paying what it holds). */
  lowWaterWei: bigint;
  /** Units credited across all members never exceed the pool the release was funded with. */
  accountingValid: boolean;
}

export interface DeploymentVerdict {
  state: DeploymentState;
  claimEnabled: boolean;
  reasonCode: ReasonCode | null;
}

export function deploymentVerdict(f: DeploymentFacts): DeploymentVerdict {
  const no = (state: DeploymentState, reasonCode: ReasonCode): DeploymentVerdict => ({ state, claimEnabled: false, reasonCode });
  if (!f.deployed) return no('not_deployed', 'PARTICIPATION_RELEASE_NOT_DEPLOYED');
  if (!f.routeWired) return no('route_not_deployed', 'PARTICIPATION_RELEASE_ROUTE_NOT_DEPLOYED');
  if (f.mode === 'retired') return no('retired', 'PARTICIPATION_RELEASE_INACTIVE');
  if (f.mode === 'off') return no('inactive', 'PARTICIPATION_RELEASE_INACTIVE');
  if (!f.chainUp) return no('degraded', 'PARTICIPATION_ROUTE_DEGRADED');
  if (f.quarantined) return no('quarantined', 'PARTICIPATION_ROUTE_QUARANTINED');
  if (f.paused) return no('payment_paused', 'PARTICIPATION_DISTRIBUTION_PAUSED');
  if (f.inventoryWei === 0n) return no('degraded', 'PARTICIPATION_MONEY_PATH_INCOMPLETE');
  if (!f.accountingValid) return no('degraded', 'PARTICIPATION_LEDGER_ACCOUNTING_INVALID');
  // Low but not empty: claims within what it holds still pay.
  if (f.inventoryWei < f.lowWaterWei) return { state: 'degraded', claimEnabled: true, reasonCode: 'PARTICIPATION_INVENTORY_LOW' };
  return { state: 'active', claimEnabled: true, reasonCode: null };
}

export interface MemberFacts {
  /** The calling key belongs to an agent. */
  isAgent: boolean;
  /** The agent's bound wallet (lowercase), its operating wallet. */
  wallet: string | null;
  identity: { id: string; isRoot: boolean; rootBoundToAnotherAgent: boolean } | null;
  /** The release requires members to be linked under an identity (PARTICIPATION_REQUIRE_IDENTITY). */
  requireIdentity: boolean;
  /** The latest live human attestation of any of the member's wallets. */
  verifiedAt: Date | null;
  attestationMaxAgeMs: number;
  /** The reputation fold knows the member's wallet (it has a subject). */
  reputationKnown: boolean;
  now: Date;
}

export interface MemberVerdict {
  status: MemberStatus;
  role: MemberRole | null;
  walletAddress: string | null;
  refusal: ReasonCode | null;
}

export function memberVerdict(f: MemberFacts): MemberVerdict {
  if (!f.isAgent) return { status: 'unknown', role: null, walletAddress: null, refusal: 'AGENT_OPERATING_WALLET_NOT_LINKED' };
  if (!f.wallet) return { status: 'not_linked', role: null, walletAddress: null, refusal: 'AGENT_OPERATING_WALLET_NOT_LINKED' };
  const role: MemberRole = !f.identity || f.identity.isRoot ? 'root' : f.identity.rootBoundToAnotherAgent ? 'linked_agent' : 'linked_wallet';
  const inactive = (refusal: ReasonCode): MemberVerdict => ({ status: 'inactive', role, walletAddress: f.wallet, refusal });
  if (f.requireIdentity && !f.identity) return inactive('CURRENT_IDENTITY_MEMBERSHIP_REQUIRED');
  if (!f.verifiedAt) return inactive('ACTIVE_VERIFIED_IDENTITY_REQUIRED');
  if (f.now.getTime() - f.verifiedAt.getTime() > f.attestationMaxAgeMs) return inactive('PARTICIPATION_IDENTITY_ATTESTATION_REQUIRED');
  if (!f.reputationKnown) return inactive('IDENTITY_INTEGRITY_UNKNOWN');
  return { status: 'active', role, walletAddress: f.wallet, refusal: null };
}

export interface ClaimFacts {
  now: Date;
  /** Units credited to the member, all time (PM base units). */
  creditedWei: bigint;
  /** paid(account) on the distributor. */
  paidOnChainWei: bigint;
  /** The release has no units left for new credits. */
  exhausted: boolean;
  lastPaidAt: Date | null;
  cadenceMs: number;
  /** The member's prepared intent whose voucher has not expired, if any. */
  openIntent: { recipient: string } | null;
  /** Where a distribution prepared now would pay. */
  recipient: string;
  inventoryWei: bigint;
}

/** Why the member cannot prepare a distribution now, or null with the delta it would pay. */
export function claimVerdict(f: ClaimFacts): { refusal: ReasonCode; deltaWei: bigint } | { refusal: null; deltaWei: bigint } {
  const delta = f.creditedWei - f.paidOnChainWei;
  const no = (refusal: ReasonCode) => ({ refusal, deltaWei: delta > 0n ? delta : 0n });
  if (f.openIntent) return no(f.openIntent.recipient === f.recipient ? 'PARTICIPATION_DISTRIBUTION_ALREADY_PREPARED' : 'PARTICIPATION_DISTRIBUTION_RECIPIENT_STALE');
  if (f.paidOnChainWei > f.creditedWei) return no('PARTICIPATION_LEDGER_ACCOUNTING_INVALID');
  if (f.lastPaidAt && f.now.getTime() - f.lastPaidAt.getTime() < f.cadenceMs) return no('PARTICIPATION_CLAIM_CADENCE_ACTIVE');
  if (f.creditedWei === 0n) return no(f.exhausted ? 'NEW_PARTICIPATION_RELEASE_UNITS_EXHAUSTED' : 'NO_PARTICIPATION_RELEASE_CREDITS');
  if (delta === 0n) return no('PARTICIPATION_DISTRIBUTION_ZERO_DELTA');
  if (f.inventoryWei < delta) return no('PARTICIPATION_INVENTORY_LOW');
  return { refusal: null, deltaWei: delta };
}
