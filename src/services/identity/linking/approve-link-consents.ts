/** POST /identity/approve-links: the root links consenting wallets, all or nothing; and the approval again for a retry. */
import { problem } from '../../../core/error-codes.ts';
import { isUniqueViolation } from '../../../db/index.ts';
import { LINKED_ADDRESS_CAP, linkedCountOf, lockedRootIdentity, requireWallet, type EffectRef, type LinkCaller, type LinkingDeps, type Recorded } from './shared.ts';

export interface ApprovedLinks {
  identityId: string;
  approved: { consentId: string; walletAddress: string; linkedAt: Date }[];
  /** Linked addresses after the call, the root not counted. */
  linkedCount: number;
}

/**
 * The root approves pending consents. All or nothing: any unknown, foreign or decided consent, a
 * child linked meanwhile, or crossing the 49-address cap refuses the whole call and changes nothing.
 */
export async function approveLinkConsents(deps: LinkingDeps, params: LinkCaller & Recorded & { consentIds: readonly string[] }): Promise<ApprovedLinks> {
  const { wallet } = await requireWallet(deps.db, params.agentId);
  const ids = [...new Set(params.consentIds)];
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const membership = await lockedRootIdentity(trx, wallet, 'approves consents');
      const identityId = membership.identityId;
      const consents = await trx
        .selectFrom('identity_link_consents')
        .select(['id', 'wallet_address', 'status'])
        .where('id', 'in', ids)
        .where('identity_id', '=', identityId)
        .execute();
      const missing = ids.filter((id) => !consents.some((c) => c.id === id));
      if (missing.length > 0) {
        throw problem('LINK_CONSENT_NOT_FOUND', `no consent to identity ${identityId} with id ${missing.join(', ')}; list them with GET /identity/pending-links`, {
          extensions: { consentIds: missing },
        });
      }
      const decided = consents.filter((c) => c.status !== 'pending');
      if (decided.length > 0) {
        throw problem('LINK_CONSENT_NOT_PENDING', `consent ${decided.map((c) => `${c.id} is ${c.status}`).join(', ')}; nothing was approved`, {
          extensions: { consents: decided.map((c) => ({ id: c.id, status: c.status })) },
        });
      }
      const wallets = consents.map((c) => c.wallet_address);
      const taken = await trx.selectFrom('identity_members').select('wallet_address').where('wallet_address', 'in', wallets).execute();
      if (taken.length > 0) {
        throw problem('WALLET_ALREADY_LINKED', `wallet ${taken.map((t) => t.wallet_address).join(', ')} joined an identity since consenting; nothing was approved`, {
          extensions: { walletAddresses: taken.map((t) => t.wallet_address) },
        });
      }
      const linked = await linkedCountOf(trx, identityId);
      if (linked + consents.length > LINKED_ADDRESS_CAP) {
        throw problem(
          'IDENTITY_LINK_CAP_REACHED',
          `identity ${identityId} has ${linked} linked addresses; approving ${consents.length} would pass the cap of ${LINKED_ADDRESS_CAP}; nothing was approved`,
          { extensions: { linkedCap: LINKED_ADDRESS_CAP, linkedCount: linked, requested: consents.length } },
        );
      }

      const now = deps.clock.now();
      await trx
        .insertInto('identity_members')
        .values(consents.map((c) => ({ wallet_address: c.wallet_address, identity_id: identityId, role: 'member' as const, consent_id: c.id, linked_at: now })))
        .execute();
      await trx.updateTable('identity_link_consents').set({ status: 'approved', decided_at: now }).where('id', 'in', ids).execute();
      // A wallet joins one identity: its consents to other identities lapse.
      await trx
        .updateTable('identity_link_consents')
        .set({ status: 'cancelled', decided_at: now })
        .where('wallet_address', 'in', wallets)
        .where('status', '=', 'pending')
        .execute();
      const ref: ApprovalRef = { identityId, linkedCount: linked + consents.length };
      await params.recordEffect?.(trx, JSON.stringify(ref));
      // Answer in the order the caller listed the ids.
      const byId = new Map(consents.map((c) => [c.id, c]));
      return {
        identityId,
        approved: ids.map((id) => ({ consentId: id, walletAddress: byId.get(id)!.wallet_address, linkedAt: now })),
        linkedCount: ref.linkedCount,
      };
    });
  } catch (err) {
    // A child was linked by another identity between our check and our insert.
    if (isUniqueViolation(err)) throw problem('WALLET_ALREADY_LINKED', 'a consenting wallet joined another identity meanwhile; nothing was approved');
    throw err;
  }
}

/** What an approval records besides its consents (the caller's ids): the identity and its count after the call. */
interface ApprovalRef {
  identityId: string;
  linkedCount: number;
}

/** The approval `approveLinkConsents` recorded for `consentIds` (the same ids the call listed). */
export async function recordedApproval(deps: LinkingDeps, params: EffectRef & { consentIds: readonly string[] }): Promise<ApprovedLinks> {
  const { identityId, linkedCount } = JSON.parse(params.ref) as ApprovalRef;
  const ids = [...new Set(params.consentIds)];
  // Consents are never deleted, and an approved one stays approved: decided_at is when its wallet was linked.
  const rows = await deps.db.selectFrom('identity_link_consents').select(['id', 'wallet_address', 'decided_at']).where('id', 'in', ids).execute();
  const byId = new Map(rows.map((c) => [c.id, c]));
  return {
    identityId,
    approved: ids.map((id) => ({ consentId: id, walletAddress: byId.get(id)!.wallet_address, linkedAt: byId.get(id)!.decided_at! })),
    linkedCount,
  };
}
