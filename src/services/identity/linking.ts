/**
 * Identity linking: wallets of one person grouped under one identity, so a human vote counts once
 * per identity. A root hands out a multi-use link code (3-minute TTL), children consent with it
 * from their own API-key session, the root approves consents (≤ 20 per call, ≤ 49 linked addresses)
 * and either side unlinks. Participants are agents with a bound wallet; membership is per wallet.
 * Rules and codes: docs/identity.md "Identity linking". One operation per file in `linking/`, each
 * `(deps, params)`; `createLinkingService` binds them for the Services registry. Each write is one transaction that,
 * under an Idempotency-Key (`recordEffect`), records what it did; `recorded…` reads it back for a retry.
 */
import { approveLinkConsents, recordedApproval } from './linking/approve-link-consents.ts';
import { generateLinkCode, recordedLinkCode } from './linking/generate-link-code.ts';
import { getAgentIdentity } from './linking/get-agent-identity.ts';
import { identityOf } from './linking/identity-of.ts';
import { listPendingLinkConsents } from './linking/list-pending-link-consents.ts';
import { purgeExpiredLinkCodes } from './linking/purge-expired-link-codes.ts';
import type { IdentityMembership, LinkingDeps } from './linking/shared.ts';
import { recordedLinkConsent, submitLinkConsent } from './linking/submit-link-consent.ts';
import { recordedUnlink, unlinkIdentityWallets } from './linking/unlink-identity-wallets.ts';

export { APPROVE_LINKS_MAX, LINK_CODE_TTL_SECONDS, LINKED_ADDRESS_CAP, UNLINK_MAX, type IdentityMembership, type LinkingDeps } from './linking/shared.ts';
export type { ApprovedLinks } from './linking/approve-link-consents.ts';
export type { IssuedLinkCode } from './linking/generate-link-code.ts';
export type { AgentIdentityState } from './linking/get-agent-identity.ts';
export type { PendingConsentPage } from './linking/list-pending-link-consents.ts';
export type { SubmittedConsent } from './linking/submit-link-consent.ts';
export type { UnlinkResult } from './linking/unlink-identity-wallets.ts';
export { identityOf };

type Op<P, R> = (deps: LinkingDeps, params: P) => Promise<R>;
type Bound<F> = F extends Op<infer P, infer R> ? (params: P) => Promise<R> : never;

export interface LinkingService {
  identityOf(walletAddress: string): Promise<IdentityMembership | null>;
  generateLinkCode: Bound<typeof generateLinkCode>;
  recordedLinkCode: Bound<typeof recordedLinkCode>;
  submitLinkConsent: Bound<typeof submitLinkConsent>;
  recordedLinkConsent: Bound<typeof recordedLinkConsent>;
  listPendingLinkConsents: Bound<typeof listPendingLinkConsents>;
  approveLinkConsents: Bound<typeof approveLinkConsents>;
  recordedApproval: Bound<typeof recordedApproval>;
  unlinkIdentityWallets: Bound<typeof unlinkIdentityWallets>;
  recordedUnlink: Bound<typeof recordedUnlink>;
  getAgentIdentity: Bound<typeof getAgentIdentity>;
  purgeExpiredLinkCodes(): Promise<number>;
}

export function createLinkingService(deps: LinkingDeps): LinkingService {
  return {
    identityOf: (walletAddress) => identityOf(deps, walletAddress),
    generateLinkCode: (p) => generateLinkCode(deps, p),
    recordedLinkCode: (p) => recordedLinkCode(deps, p),
    submitLinkConsent: (p) => submitLinkConsent(deps, p),
    recordedLinkConsent: (p) => recordedLinkConsent(deps, p),
    listPendingLinkConsents: (p) => listPendingLinkConsents(deps, p),
    approveLinkConsents: (p) => approveLinkConsents(deps, p),
    recordedApproval: (p) => recordedApproval(deps, p),
    unlinkIdentityWallets: (p) => unlinkIdentityWallets(deps, p),
    recordedUnlink: (p) => recordedUnlink(deps, p),
    getAgentIdentity: (p) => getAgentIdentity(deps, p),
    purgeExpiredLinkCodes: () => purgeExpiredLinkCodes(deps),
  };
}
