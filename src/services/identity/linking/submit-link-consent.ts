/** POST /identity/link-consent: a wallet consents to join the identity that issued a code; and the consent again for a retry. */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import { hashLinkCode, normalizeLinkCode } from '../../../core/link-code.ts';
import { digestMatches } from '../../../core/secrets.ts';
import { isUniqueViolation } from '../../../db/index.ts';
import type { DB, LinkConsentStatus } from '../../../db/schema.ts';
import { alreadyLinked, LINK_CODE_TTL_SECONDS, membershipOf, requireWallet, type EffectRef, type LinkCaller, type LinkingDeps, type Recorded } from './shared.ts';

export interface LinkConsentView {
  id: string;
  identityId: string;
  rootWallet: string;
  walletAddress: string;
  agentId: string;
  status: LinkConsentStatus;
  submittedAt: Date;
}

export interface SubmittedConsent {
  consent: LinkConsentView;
  /** false when the caller already had a pending consent for this identity (that one is returned). */
  created: boolean;
}

/**
 * The caller's wallet consents to join the identity that issued `code`. No wallet signature: the key session proves the
 * caller. A new consent is recorded (by id) under an Idempotency-Key; answering a pending one changes nothing.
 */
export async function submitLinkConsent(deps: LinkingDeps, params: LinkCaller & Recorded & { code: string }): Promise<SubmittedConsent> {
  const { agentId, wallet } = await requireWallet(deps.db, params.agentId);
  const now = deps.clock.now();
  const code = await findLinkCode(deps.db, params.code);
  if (code.expires_at.getTime() <= now.getTime()) {
    throw problem('LINK_CODE_EXPIRED', `this link code expired at ${code.expires_at.toISOString()} (codes live ${LINK_CODE_TTL_SECONDS} s); ask the root for a fresh one`);
  }
  const identity = await deps.db.selectFrom('identities').select(['id', 'root_wallet']).where('id', '=', code.identity_id).executeTakeFirstOrThrow();

  const membership = await membershipOf(deps.db, wallet);
  if (membership?.identityId === identity.id && membership.role === 'root') {
    throw problem('LINK_TO_OWN_IDENTITY', `wallet ${wallet} is the root of identity ${identity.id}; a link code is for the wallets you want to link, not for the root`);
  }
  if (membership) throw alreadyLinked([wallet], membership);

  const view = (row: { id: string; status: LinkConsentStatus; created_at: Date }) =>
    consentView({ ...row, identity_id: identity.id, root_wallet: identity.root_wallet, wallet_address: wallet, agent_id: agentId });
  const pending = () =>
    deps.db
      .selectFrom('identity_link_consents')
      .select(['id', 'status', 'created_at'])
      .where('identity_id', '=', identity.id)
      .where('wallet_address', '=', wallet)
      .where('status', '=', 'pending')
      .executeTakeFirst();

  const existing = await pending();
  if (existing) return { consent: view(existing), created: false };
  try {
    const row = await deps.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('identity_link_consents')
        .values({ id: randomUUID(), identity_id: identity.id, wallet_address: wallet, agent_id: agentId, status: 'pending', created_at: now })
        .returning(['id', 'status', 'created_at'])
        .executeTakeFirstOrThrow();
      await params.recordEffect?.(trx, inserted.id);
      return inserted;
    });
    return { consent: view(row), created: true };
  } catch (err) {
    // A concurrent consent of the same wallet won the unique index: answer with that one.
    const raced = isUniqueViolation(err) ? await pending() : undefined;
    if (raced) return { consent: view(raced), created: false };
    throw err;
  }
}

/** The consent `submitLinkConsent` recorded, as it stands now. */
export async function recordedLinkConsent(deps: LinkingDeps, { ref }: EffectRef): Promise<SubmittedConsent> {
  const row = await deps.db
    .selectFrom('identity_link_consents as c')
    .innerJoin('identities as i', 'i.id', 'c.identity_id')
    .select(['c.id', 'c.identity_id', 'i.root_wallet', 'c.wallet_address', 'c.agent_id', 'c.status', 'c.created_at'])
    .where('c.id', '=', ref)
    .executeTakeFirstOrThrow();
  return { consent: consentView(row), created: true };
}

const consentView = (row: {
  id: string;
  identity_id: string;
  root_wallet: string;
  wallet_address: string;
  agent_id: string;
  status: LinkConsentStatus;
  created_at: Date;
}): LinkConsentView => ({
  id: row.id,
  identityId: row.identity_id,
  rootWallet: row.root_wallet,
  walletAddress: row.wallet_address,
  agentId: row.agent_id,
  status: row.status,
  submittedAt: row.created_at,
});

/** Looks a code up by its hash; the final comparison is constant-time like API keys'. */
async function findLinkCode(db: Kysely<DB>, typed: string) {
  const normalized = normalizeLinkCode(typed);
  const computed = normalized === null ? null : hashLinkCode(normalized);
  const row = computed === null ? undefined : await db.selectFrom('identity_link_codes').selectAll().where('code_hash', '=', computed).executeTakeFirst();
  if (!row || computed === null || !digestMatches(row.code_hash, computed)) {
    throw problem('LINK_CODE_UNKNOWN', 'this link code is not recognised; check it (format XXXX-XXXX-XXXX) or ask the root for a fresh one');
  }
  return row;
}
