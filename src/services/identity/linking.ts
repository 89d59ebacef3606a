/**
 * Identity linking: wallets of one person grouped under one identity, so a human vote counts once
 * per identity. A root hands out a multi-use link code (3-minute TTL), children consent with it
 * from their own API-key session, the root approves consents (≤ 20 per call, ≤ 49 linked addresses)
 * and either side unlinks. Participants are agents with a bound wallet; membership is per wallet.
 * Rules and codes: docs/identity.md "Identity linking". One exported function per operation, each
 * `(deps, params)`; `createLinkingService` binds them for the Services registry. Each write is one transaction that,
 * under an Idempotency-Key (`recordEffect`), records what it did; `recorded…` reads it back for a retry.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { digestMatches } from '../../core/secrets.ts';
import { generateLinkCodeText, hashLinkCode, normalizeLinkCode } from '../../core/link-code.ts';
import { isUniqueViolation, type Executor } from '../../db/index.ts';
import type { DB, IdentityRole, LinkConsentStatus } from '../../db/schema.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';

/** Seconds a link code stays usable after issue (spec Limits: 3-minute TTL). */
export const LINK_CODE_TTL_SECONDS = 180 as const;
/** Consent ids per approve-links call (spec Limits). */
export const APPROVE_LINKS_MAX = 20;
/** Addresses per unlink call (spec Limits). */
export const UNLINK_MAX = 49;
/** Linked addresses per identity, the root not counted (spec Limits). */
export const LINKED_ADDRESS_CAP = 49 as const;

export interface LinkingDeps {
  db: Kysely<DB>;
  clock: Clock;
}

/** Who calls: the agent of the authenticated key (null for keys that belong to no agent). */
export interface LinkCaller {
  agentId: string | null;
}

/** A write's parameters under an Idempotency-Key: records the write in its transaction. */
export interface Recorded {
  recordEffect?: EffectRecorder | undefined;
}

/** What a write recorded under an Idempotency-Key (idempotency_records.effect_ref), for `recorded…` to read back. */
export interface EffectRef {
  ref: string;
}

export interface IdentityMembership {
  identityId: string;
  role: IdentityRole;
  /** Lowercase wallet of the identity's root. */
  rootWallet: string;
  linkedAt: Date;
}

// ---------------------------------------------------------------------------------------------
// identityOf — for later issues (one human vote per identity)

/** The identity a wallet belongs to (any case accepted), or null when it is linked to none. */
export async function identityOf(deps: Pick<LinkingDeps, 'db'>, walletAddress: string): Promise<IdentityMembership | null> {
  return membershipOf(deps.db, walletAddress.toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// POST /identity/link-code

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

// ---------------------------------------------------------------------------------------------
// POST /identity/link-consent

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

// ---------------------------------------------------------------------------------------------
// GET /identity/pending-links

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

// ---------------------------------------------------------------------------------------------
// POST /identity/approve-links

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

// ---------------------------------------------------------------------------------------------
// POST /identity/unlink

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

// ---------------------------------------------------------------------------------------------
// GET /agents/me/identity

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

// ---------------------------------------------------------------------------------------------
// Upkeep

/** Deletes link codes expired for more than a day (until then a late use answers LINK_CODE_EXPIRED). */
export async function purgeExpiredLinkCodes(deps: LinkingDeps): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - 86_400_000);
  const r = await deps.db.deleteFrom('identity_link_codes').where('expires_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}

// ---------------------------------------------------------------------------------------------
// The bound service (Services.linking)

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

// ---------------------------------------------------------------------------------------------
// Shared steps

/** The caller's agent and its bound wallet, or 409 WALLET_NOT_BOUND. */
async function requireWallet(db: Kysely<DB>, agentId: string | null): Promise<{ agentId: string; wallet: string }> {
  if (agentId === null) {
    throw problem('WALLET_NOT_BOUND', 'this API key belongs to no agent; identity linking is for agents with a bound wallet (register with the wallet path)');
  }
  const agent = await db.selectFrom('agents').select('wallet_address').where('id', '=', agentId).executeTakeFirst();
  if (!agent?.wallet_address) {
    throw problem('WALLET_NOT_BOUND', 'this agent has no bound wallet; bind one with POST /agents/me/bind-wallet, then link it');
  }
  return { agentId, wallet: agent.wallet_address };
}

async function membershipOf(ex: Executor, wallet: string): Promise<IdentityMembership | null> {
  const row = await ex
    .selectFrom('identity_members as m')
    .innerJoin('identities as i', 'i.id', 'm.identity_id')
    .select(['m.identity_id', 'm.role', 'm.linked_at', 'i.root_wallet'])
    .where('m.wallet_address', '=', wallet)
    .executeTakeFirst();
  return row ? { identityId: row.identity_id, role: row.role, rootWallet: row.root_wallet, linkedAt: row.linked_at } : null;
}

/** The caller's membership with its identity row locked for the rest of the transaction. */
async function lockedIdentity(trx: Executor, wallet: string): Promise<IdentityMembership> {
  const membership = await membershipOf(trx, wallet);
  if (!membership) {
    throw problem('IDENTITY_NOT_FOUND', `wallet ${wallet} belongs to no identity; POST /identity/link-code creates one with this wallet as root`);
  }
  // Serialises approvals and unlinks of one identity, so the cap holds under concurrency.
  await trx.selectFrom('identities').select('id').where('id', '=', membership.identityId).forUpdate().execute();
  // The wallet may have been unlinked while we waited for the lock.
  const current = await membershipOf(trx, wallet);
  if (!current) throw problem('IDENTITY_NOT_FOUND', `wallet ${wallet} belongs to no identity`);
  return current;
}

async function lockedRootIdentity(trx: Executor, wallet: string, action: string): Promise<IdentityMembership> {
  const membership = await lockedIdentity(trx, wallet);
  if (membership.role !== 'root') throw notRoot(wallet, membership, action);
  return membership;
}

async function linkedCountOf(ex: Executor, identityId: string): Promise<number> {
  const rows = await ex.selectFrom('identity_members').select('wallet_address').where('identity_id', '=', identityId).where('role', '=', 'member').execute();
  return rows.length;
}

const notRoot = (wallet: string, m: IdentityMembership, action: string) =>
  problem('NOT_IDENTITY_ROOT', `wallet ${wallet} is a linked member of identity ${m.identityId}; only its root ${m.rootWallet} ${action}`);

const alreadyLinked = (wallets: string[], m: IdentityMembership) =>
  problem(
    'WALLET_ALREADY_LINKED',
    `wallet ${wallets.join(', ')} already belongs to identity ${m.identityId} (as ${m.role}); unlink it first (POST /identity/unlink)`,
    { extensions: { walletAddresses: wallets, identityId: m.identityId } },
  );

