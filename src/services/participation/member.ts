/**
 * The member behind a calling agent (docs/participation.md "Members"): its operating wallet (the agent's bound
 * wallet), the identity that wallet is linked under, and the account the release credits and pays — the identity's
 * root wallet, or the wallet itself when it is linked to none. Verified: a live human attestation of any wallet of
 * the identity; known to integrity checks: the reputation fold has met the wallet.
 */
import { memberVerdict, type MemberVerdict } from '../../core/participation/gates.ts';
import type { Principal } from '../../core/principal.ts';
import { identityOf } from '../identity/linking.ts';
import type { ParticipationDeps } from './deps.ts';

export interface Member {
  verdict: MemberVerdict;
  agentId: string | null;
  /** The account credits and vouchers are for (lowercase); null without an operating wallet. */
  account: string | null;
  /** Every wallet of the member (the identity's, or the one). */
  wallets: string[];
}

export async function memberOf(deps: ParticipationDeps, principal: Principal): Promise<Member> {
  const { db, settings } = deps;
  const now = deps.clock.now();
  const agent = principal.agentId ? await db.selectFrom('agents').select(['id', 'wallet_address']).where('id', '=', principal.agentId).executeTakeFirst() : undefined;
  const wallet = agent?.wallet_address?.toLowerCase() ?? null;
  const membership = wallet ? await identityOf({ db }, wallet) : null;
  const wallets = membership
    ? (await db.selectFrom('identity_members').select('wallet_address').where('identity_id', '=', membership.identityId).execute()).map((r) => r.wallet_address)
    : wallet
      ? [wallet]
      : [];
  const rootAgent = membership && membership.role !== 'root' ? await db.selectFrom('agents').select('id').where('wallet_address', '=', membership.rootWallet).executeTakeFirst() : undefined;
  const attestation =
    wallets.length > 0
      ? await db.selectFrom('human_verifications').select((eb) => eb.fn.max('verified_at').as('at')).where('wallet_address', 'in', wallets).where('revoked_at', 'is', null).executeTakeFirst()
      : undefined;
  const known = wallet ? await db.selectFrom('reputation_wallets').select('wallet').where('wallet', '=', wallet).executeTakeFirst() : undefined;
  const verdict = memberVerdict({
    isAgent: agent !== undefined,
    wallet,
    identity: membership ? { id: membership.identityId, isRoot: membership.role === 'root', rootBoundToAnotherAgent: rootAgent !== undefined && rootAgent.id !== agent?.id } : null,
    requireIdentity: settings.requireIdentity,
    verifiedAt: attestation?.at ? new Date(attestation.at as unknown as string) : null,
    attestationMaxAgeMs: settings.attestationMaxAgeMs,
    reputationKnown: known !== undefined,
    now,
  });
  return { verdict, agentId: agent?.id ?? null, account: membership?.rootWallet ?? wallet, wallets };
}
