/** POST /identity/link-code: a root's multi-use link code, and its answer again for a retry under the same Idempotency-Key. */
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import { generateLinkCodeText, hashLinkCode, normalizeLinkCode } from '../../../core/link-code.ts';
import { isUniqueViolation } from '../../../db/index.ts';
import type { DB } from '../../../db/schema.ts';
import { LINK_CODE_TTL_SECONDS, membershipOf, requireWallet, type EffectRef, type IdentityMembership, type LinkCaller, type LinkingDeps, type Recorded } from './shared.ts';

export interface IssuedLinkCode {
  /** Display form XXXX-XXXX-XXXX; shown once. */
  code: string;
  identityId: string;
  rootWallet: string;
  issuedAt: Date;
  expiresAt: Date;
}

/** What link-code records: the code row, and what its answer needs besides (the row goes when the identity dissolves). */
interface LinkCodeRef {
  linkCodeId: string;
  identityId: string;
  issuedAt: string;
}

/**
 * Issues a link code for the caller's identity, creating the identity (caller = root) on first use, in one
 * transaction: a code that rolls back leaves no identity behind either.
 */
export async function generateLinkCode(deps: LinkingDeps, params: LinkCaller & Recorded): Promise<IssuedLinkCode> {
  const { agentId, wallet } = await requireWallet(deps.db, params.agentId);
  // Two attempts: a concurrent call may create the identity (or link the wallet elsewhere) first.
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.db.transaction().execute(async (trx) => {
        const membership = await rootMembershipFor(deps, trx, wallet);
        const code = generateLinkCodeText();
        const linkCodeId = randomUUID();
        const issuedAt = deps.clock.now();
        await trx
          .insertInto('identity_link_codes')
          .values({
            id: linkCodeId,
            identity_id: membership.identityId,
            code_hash: hashLinkCode(normalizeLinkCode(code)!),
            issued_by_agent_id: agentId,
            created_at: issuedAt,
            expires_at: linkCodeExpiry(issuedAt),
          })
          .execute();
        const ref: LinkCodeRef = { linkCodeId, identityId: membership.identityId, issuedAt: issuedAt.toISOString() };
        await params.recordEffect?.(trx, JSON.stringify(ref));
        return { code, identityId: membership.identityId, rootWallet: membership.rootWallet, issuedAt, expiresAt: linkCodeExpiry(issuedAt) };
      });
    } catch (err) {
      if (!isUniqueViolation(err) || attempt > 0) throw err;
    }
  }
}

/** The link code `generateLinkCode` recorded, without the code (shown once). */
export async function recordedLinkCode(deps: LinkingDeps, { ref }: EffectRef): Promise<Omit<IssuedLinkCode, 'code'> & { code: null }> {
  const { identityId, issuedAt } = JSON.parse(ref) as LinkCodeRef;
  // Identities are never deleted (a dissolved one keeps its row).
  const identity = await deps.db.selectFrom('identities').select('root_wallet').where('id', '=', identityId).executeTakeFirstOrThrow();
  const at = new Date(issuedAt);
  return { code: null, identityId, rootWallet: identity.root_wallet, issuedAt: at, expiresAt: linkCodeExpiry(at) };
}

const linkCodeExpiry = (issuedAt: Date): Date => new Date(issuedAt.getTime() + LINK_CODE_TTL_SECONDS * 1000);

/** The caller's root membership; a wallet in no identity becomes the root of a new one (in `trx`). */
async function rootMembershipFor(deps: LinkingDeps, trx: Transaction<DB>, wallet: string): Promise<IdentityMembership> {
  const existing = await membershipOf(trx, wallet);
  if (existing?.role === 'member') {
    throw problem('NOT_IDENTITY_ROOT', `wallet ${wallet} is a linked member of identity ${existing.identityId}; only its root ${existing.rootWallet} issues link codes`);
  }
  if (existing) return existing;
  const now = deps.clock.now();
  const identityId = randomUUID();
  await trx.insertInto('identities').values({ id: identityId, root_wallet: wallet, created_at: now }).execute();
  await trx.insertInto('identity_members').values({ wallet_address: wallet, identity_id: identityId, role: 'root', consent_id: null, linked_at: now }).execute();
  return { identityId, role: 'root', rootWallet: wallet, linkedAt: now };
}
