/** POST /identity/unlink: wallets leave the caller's identity, all or nothing; and the unlink again for a retry. */
import type { Transaction } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import type { DB } from '../../../db/schema.ts';
import { linkedCountOf, lockedIdentity, requireWallet, type EffectRef, type LinkCaller, type LinkingDeps, type Recorded } from './shared.ts';

export interface UnlinkResult {
  identityId: string;
  unlinked: string[];
  /** true when the root left its identity (only possible with no members left): the identity is gone. */
  dissolved: boolean;
  /** Linked addresses left, the root not counted. */
  linkedCount: number;
}

/**
 * Removes wallets from the caller's identity, all or nothing. A root unlinks members, and may list
 * itself only when no member stays (the identity is then dissolved); a member may unlink only itself.
 */
export async function unlinkIdentityWallets(deps: LinkingDeps, params: LinkCaller & Recorded & { walletAddresses: readonly string[] }): Promise<UnlinkResult> {
  const { wallet } = await requireWallet(deps.db, params.agentId);
  const targets = unlinkTargets(params.walletAddresses);
  // What it removed is gone from the rows: the record keeps the facts of the answer besides the caller's addresses.
  const recorded = async (trx: Transaction<DB>, ref: UnlinkRef): Promise<UnlinkResult> => {
    await params.recordEffect?.(trx, JSON.stringify(ref));
    return { ...ref, unlinked: targets };
  };
  return deps.db.transaction().execute(async (trx) => {
    const membership = await lockedIdentity(trx, wallet);
    const identityId = membership.identityId;
    const now = deps.clock.now();

    if (membership.role === 'member') {
      if (targets.length !== 1 || targets[0] !== wallet) {
        throw problem('NOT_IDENTITY_ROOT', `wallet ${wallet} is a linked member of identity ${identityId}: it may unlink only itself; the root ${membership.rootWallet} unlinks others`);
      }
      await trx.deleteFrom('identity_members').where('wallet_address', '=', wallet).execute();
      return recorded(trx, { identityId, dissolved: false, linkedCount: await linkedCountOf(trx, identityId) });
    }

    const rows = await trx
      .selectFrom('identity_members')
      .select(['wallet_address', 'role'])
      .where('identity_id', '=', identityId)
      .where('wallet_address', 'in', targets)
      .execute();
    const missing = targets.filter((t) => !rows.some((r) => r.wallet_address === t));
    if (missing.length > 0) {
      throw problem('WALLET_NOT_LINKED', `wallet ${missing.join(', ')} is not linked to identity ${identityId}; nothing was unlinked`, {
        extensions: { walletAddresses: missing },
      });
    }
    const linked = await linkedCountOf(trx, identityId);
    const members = rows.filter((r) => r.role === 'member').length;
    const leaving = targets.includes(wallet);
    if (leaving && linked - members > 0) {
      throw problem('IDENTITY_HAS_MEMBERS', `the root may leave identity ${identityId} only when no member stays (${linked - members} would); unlink them first, or in the same call`, {
        extensions: { linkedCount: linked },
      });
    }
    await trx.deleteFrom('identity_members').where('identity_id', '=', identityId).where('wallet_address', 'in', targets).execute();
    if (leaving) {
      // The identity is gone: its codes stop working and consents to it lapse.
      await trx.updateTable('identities').set({ dissolved_at: now }).where('id', '=', identityId).execute();
      await trx.deleteFrom('identity_link_codes').where('identity_id', '=', identityId).execute();
      await trx
        .updateTable('identity_link_consents')
        .set({ status: 'cancelled', decided_at: now })
        .where('identity_id', '=', identityId)
        .where('status', '=', 'pending')
        .execute();
    }
    return recorded(trx, { identityId, dissolved: leaving, linkedCount: linked - members });
  });
}

type UnlinkRef = Omit<UnlinkResult, 'unlinked'>;

/** The unlink `unlinkIdentityWallets` recorded for `walletAddresses` (the same addresses the call listed). */
export async function recordedUnlink(_deps: LinkingDeps, params: EffectRef & { walletAddresses: readonly string[] }): Promise<UnlinkResult> {
  const ref = JSON.parse(params.ref) as UnlinkRef;
  return { identityId: ref.identityId, unlinked: unlinkTargets(params.walletAddresses), dissolved: ref.dissolved, linkedCount: ref.linkedCount };
}

const unlinkTargets = (walletAddresses: readonly string[]): string[] => [...new Set(walletAddresses.map((w) => w.toLowerCase()))];
