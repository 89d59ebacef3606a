/** The identity a wallet belongs to: what one human vote per identity counts by. */
import { membershipOf, type IdentityMembership, type LinkingDeps } from './shared.ts';

/** The identity a wallet belongs to (any case accepted), or null when it is linked to none. */
export async function identityOf(deps: Pick<LinkingDeps, 'db'>, walletAddress: string): Promise<IdentityMembership | null> {
  return membershipOf(deps.db, walletAddress.toLowerCase());
}
