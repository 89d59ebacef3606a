/**
 * What the identity-linking operations share (docs/identity.md "Identity linking"): the spec's limits, the deps and
 * parameter shapes, and the steps every operation starts from (the caller's bound wallet, its membership, the
 * identity row locked for a change).
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.ts';
import { problem } from '../../../core/error-codes.ts';
import type { Executor } from '../../../db/index.ts';
import type { DB, IdentityRole } from '../../../db/schema.ts';
import type { EffectRecorder } from '../../idempotency/idempotency.ts';

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

/** The caller's agent and its bound wallet, or 409 WALLET_NOT_BOUND. */
export async function requireWallet(db: Kysely<DB>, agentId: string | null): Promise<{ agentId: string; wallet: string }> {
  if (agentId === null) {
    throw problem('WALLET_NOT_BOUND', 'this API key belongs to no agent; identity linking is for agents with a bound wallet (register with the wallet path)');
  }
  const agent = await db.selectFrom('agents').select('wallet_address').where('id', '=', agentId).executeTakeFirst();
  if (!agent?.wallet_address) {
    throw problem('WALLET_NOT_BOUND', 'this agent has no bound wallet; bind one with POST /agents/me/bind-wallet, then link it');
  }
  return { agentId, wallet: agent.wallet_address };
}

export async function membershipOf(ex: Executor, wallet: string): Promise<IdentityMembership | null> {
  const row = await ex
    .selectFrom('identity_members as m')
    .innerJoin('identities as i', 'i.id', 'm.identity_id')
    .select(['m.identity_id', 'm.role', 'm.linked_at', 'i.root_wallet'])
    .where('m.wallet_address', '=', wallet)
    .executeTakeFirst();
  return row ? { identityId: row.identity_id, role: row.role, rootWallet: row.root_wallet, linkedAt: row.linked_at } : null;
}

/** The caller's membership with its identity row locked for the rest of the transaction. */
export async function lockedIdentity(trx: Executor, wallet: string): Promise<IdentityMembership> {
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

export async function lockedRootIdentity(trx: Executor, wallet: string, action: string): Promise<IdentityMembership> {
  const membership = await lockedIdentity(trx, wallet);
  if (membership.role !== 'root') throw notRoot(wallet, membership, action);
  return membership;
}

export async function linkedCountOf(ex: Executor, identityId: string): Promise<number> {
  const rows = await ex.selectFrom('identity_members').select('wallet_address').where('identity_id', '=', identityId).where('role', '=', 'member').execute();
  return rows.length;
}

export const notRoot = (wallet: string, m: IdentityMembership, action: string) =>
  problem('NOT_IDENTITY_ROOT', `wallet ${wallet} is a linked member of identity ${m.identityId}; only its root ${m.rootWallet} ${action}`);

export const alreadyLinked = (wallets: string[], m: IdentityMembership) =>
  problem(
    'WALLET_ALREADY_LINKED',
    `wallet ${wallets.join(', ')} already belongs to identity ${m.identityId} (as ${m.role}); unlink it first (POST /identity/unlink)`,
    { extensions: { walletAddresses: wallets, identityId: m.identityId } },
  );
