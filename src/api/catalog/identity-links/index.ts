// Identity linking (spec "Registration, keys, identity linking"), in the catalog's order.
import { approveLinkConsents } from './approve-links.ts';
import { generateLinkCode } from './link-code.ts';
import { submitLinkConsent } from './link-consent.ts';
import { getAgentIdentity } from './me-identity.ts';
import { listPendingLinkConsents } from './pending-links.ts';
import { unlinkIdentityWallets } from './unlink.ts';

export const IDENTITY_LINK_CAPABILITIES = [
  getAgentIdentity,
  generateLinkCode,
  submitLinkConsent,
  listPendingLinkConsents,
  approveLinkConsents,
  unlinkIdentityWallets,
] as const;
