/** GET /identity/pending-links: the consents waiting for the root's approval, a page at a time. */
import { problem } from '../../../core/error-codes.ts';
import { membershipOf, notRoot, requireWallet, type LinkCaller, type LinkingDeps } from './shared.ts';

export interface PendingConsent {
  id: string;
  walletAddress: string;
  agentId: string;
  agentName: string;
  submittedAt: Date;
}

export interface PendingConsentPage {
  /** null when the caller's wallet is linked to no identity (nothing can be pending). */
  identityId: string | null;
  consents: PendingConsent[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** Pending consents to the caller's identity, oldest first. Only the root may list them. */
export async function listPendingLinkConsents(
  deps: LinkingDeps,
  params: LinkCaller & { limit: number; cursor?: string | undefined },
): Promise<PendingConsentPage> {
  const { wallet } = await requireWallet(deps.db, params.agentId);
  const membership = await membershipOf(deps.db, wallet);
  if (!membership) return { identityId: null, consents: [], nextCursor: null };
  if (membership.role !== 'root') throw notRoot(wallet, membership, 'lists pending consents');

  let query = deps.db
    .selectFrom('identity_link_consents as c')
    .innerJoin('agents as a', 'a.id', 'c.agent_id')
    .select(['c.id', 'c.wallet_address', 'c.agent_id', 'a.name', 'c.created_at'])
    .where('c.identity_id', '=', membership.identityId)
    .where('c.status', '=', 'pending');
  if (params.cursor !== undefined) {
    const after = await deps.db
      .selectFrom('identity_link_consents')
      .select('seq')
      .where('id', '=', params.cursor)
      .where('identity_id', '=', membership.identityId)
      .executeTakeFirst();
    if (!after) {
      throw problem('INVALID_QUERY', 'query.cursor: not a cursor of this listing (use nextCursor of a previous page)', {
        errors: [{ path: 'query.cursor', message: 'not a cursor of this listing' }],
      });
    }
    query = query.where('c.seq', '>', after.seq);
  }
  const rows = await query.orderBy('c.seq').limit(params.limit + 1).execute();
  const page = rows.slice(0, params.limit);
  return {
    identityId: membership.identityId,
    consents: page.map((r) => ({ id: r.id, walletAddress: r.wallet_address, agentId: r.agent_id, agentName: r.name, submittedAt: r.created_at })),
    nextCursor: rows.length > params.limit ? page[page.length - 1]!.id : null,
  };
}
