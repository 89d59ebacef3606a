/** GET /agents/me/identity: the caller's identity, its members and the caller's pending consents. */
import type { IdentityRole } from '../../../db/schema.ts';
import { membershipOf, requireWallet, type LinkCaller, type LinkingDeps } from './shared.ts';

export interface AgentIdentityState {
  walletAddress: string;
  identity: null | {
    id: string;
    role: IdentityRole;
    rootWallet: string;
    createdAt: Date;
    /** When the caller's wallet joined (for the root: when the identity was created). */
    linkedAt: Date;
    /** Every wallet of the identity, root first, then members in link order. */
    members: { walletAddress: string; role: IdentityRole; linkedAt: Date }[];
    linkedCount: number;
  };
  /** Consents this wallet submitted that await a root's approval. */
  pendingConsents: { id: string; identityId: string; rootWallet: string; submittedAt: Date }[];
}

export async function getAgentIdentity(deps: LinkingDeps, params: LinkCaller): Promise<AgentIdentityState> {
  const { wallet } = await requireWallet(deps.db, params.agentId);
  const membership = await membershipOf(deps.db, wallet);
  const pending = await deps.db
    .selectFrom('identity_link_consents as c')
    .innerJoin('identities as i', 'i.id', 'c.identity_id')
    .select(['c.id', 'c.identity_id', 'i.root_wallet', 'c.created_at'])
    .where('c.wallet_address', '=', wallet)
    .where('c.status', '=', 'pending')
    .orderBy('c.seq')
    .execute();
  const pendingConsents = pending.map((p) => ({ id: p.id, identityId: p.identity_id, rootWallet: p.root_wallet, submittedAt: p.created_at }));
  if (!membership) return { walletAddress: wallet, identity: null, pendingConsents };

  const identity = await deps.db.selectFrom('identities').select('created_at').where('id', '=', membership.identityId).executeTakeFirstOrThrow();
  const members = await deps.db
    .selectFrom('identity_members')
    .select(['wallet_address', 'role', 'linked_at'])
    .where('identity_id', '=', membership.identityId)
    .orderBy((eb) => eb.case().when('role', '=', 'root').then(0).else(1).end())
    .orderBy('linked_at')
    .orderBy('wallet_address')
    .execute();
  return {
    walletAddress: wallet,
    identity: {
      id: membership.identityId,
      role: membership.role,
      rootWallet: membership.rootWallet,
      createdAt: identity.created_at,
      linkedAt: membership.linkedAt,
      members: members.map((m) => ({ walletAddress: m.wallet_address, role: m.role, linkedAt: m.linked_at })),
      linkedCount: members.filter((m) => m.role === 'member').length,
    },
    pendingConsents,
  };
}
