/**
 * Which subject a wallet belongs to now (docs/reputation.md "Subjects"), whether a subject is one this service knows,
 * its tier as the last fold left it, and its representative wallet. Every function takes a Kysely executor, so a
 * caller inside a transaction passes its transaction (PGlite runs one at a time).
 */
import type { Kysely } from 'kysely';
import { isIdentityKey, subjectKeyOf, subjectValueOf, type SubjectKey } from '../../core/reputation/subject.ts';
import { reputationTierRank, type ReputationTier } from '../../core/reputation/tiers.ts';
import type { DB } from '../../db/schema.ts';

/** The subject each wallet (lowercase) is part of now: its identity, or itself. */
export async function currentSubjectKeys(db: Kysely<DB>, wallets: readonly string[]): Promise<Map<string, SubjectKey>> {
  const unique = [...new Set(wallets.map((w) => w.toLowerCase()))];
  const keys = new Map<string, SubjectKey>(unique.map((w) => [w, subjectKeyOf(w, null)]));
  if (unique.length === 0) return keys;
  const rows = await db.selectFrom('identity_members').select(['wallet_address', 'identity_id']).where('wallet_address', 'in', unique).execute();
  for (const r of rows) keys.set(r.wallet_address, subjectKeyOf(r.wallet_address, r.identity_id));
  return keys;
}

export async function currentSubjectKey(db: Kysely<DB>, wallet: string): Promise<SubjectKey> {
  return (await currentSubjectKeys(db, [wallet])).get(wallet.toLowerCase())!;
}

/** The wallets of a subject now: an identity's members (root first), or the wallet itself. */
export async function walletsOfSubject(db: Kysely<DB>, key: SubjectKey): Promise<string[]> {
  if (!isIdentityKey(key)) return [subjectValueOf(key)];
  const rows = await db.selectFrom('identity_members').select(['wallet_address', 'role']).where('identity_id', '=', subjectValueOf(key)).orderBy('role', 'desc').orderBy('wallet_address').execute();
  return rows.map((r) => r.wallet_address);
}

/** Whether anything of this wallet is known here: a recorded fact, a bound agent, an identity, an attestation. */
export async function isKnownWallet(db: Kysely<DB>, wallet: string): Promise<boolean> {
  const w = wallet.toLowerCase();
  const [record, agent, member, human] = await Promise.all([
    db.selectFrom('reputation_wallets').select('wallet').where('wallet', '=', w).executeTakeFirst(),
    db.selectFrom('agents').select('id').where('wallet_address', '=', w).executeTakeFirst(),
    db.selectFrom('identity_members').select('wallet_address').where('wallet_address', '=', w).executeTakeFirst(),
    db.selectFrom('human_verifications').select('wallet_address').where('wallet_address', '=', w).executeTakeFirst(),
  ]);
  return Boolean(record ?? agent ?? member ?? human);
}

/**
 * Whether the subject exists now: a live identity, or a wallet that is linked to no identity and is known here. A
 * wallet's own subject ends when it joins an identity (its record counts there from then on).
 */
export async function isLiveSubject(db: Kysely<DB>, key: SubjectKey): Promise<boolean> {
  if (isIdentityKey(key)) {
    const identity = await db.selectFrom('identities').select('id').where('id', '=', subjectValueOf(key)).where('dissolved_at', 'is', null).executeTakeFirst();
    return identity !== undefined;
  }
  const wallet = subjectValueOf(key);
  return (await currentSubjectKey(db, wallet)) === key && (await isKnownWallet(db, wallet));
}

/**
 * The tier a wallet's gates follow: its subject's, as of the last fold. While a change of membership waits for the
 * next fold, the lower of the subject it is recorded under and the one it belongs to now (so linking never lifts a
 * restriction early). A subject the fold has not met is new.
 */
export async function tierOfWallet(db: Kysely<DB>, wallet: string): Promise<ReputationTier> {
  const w = wallet.toLowerCase();
  const current = await currentSubjectKey(db, w);
  const recorded = await db.selectFrom('reputation_wallets').select('subject_key').where('wallet', '=', w).executeTakeFirst();
  const keys = [...new Set([current, recorded?.subject_key ?? current])];
  const rows = await db.selectFrom('reputation_subjects').select('tier').where('subject_key', 'in', keys).execute();
  if (rows.length === 0) return 'new';
  return rows.map((r) => r.tier).reduce((a, b) => (reputationTierRank(a) <= reputationTierRank(b) ? a : b));
}

/** The tier of each wallet's subject now (a subject the fold has not met is new). */
export async function tiersOfWallets(db: Kysely<DB>, wallets: readonly string[]): Promise<Map<string, { key: SubjectKey; tier: ReputationTier }>> {
  const keys = await currentSubjectKeys(db, wallets);
  const distinct = [...new Set(keys.values())];
  const rows = distinct.length === 0 ? [] : await db.selectFrom('reputation_subjects').select(['subject_key', 'tier']).where('subject_key', 'in', distinct).execute();
  const tierOf = new Map(rows.map((r) => [r.subject_key, r.tier]));
  return new Map([...keys].map(([w, key]) => [w, { key, tier: tierOf.get(key) ?? 'new' }]));
}
/** The representative wallet of a subject: an identity's root, or the wallet. */
export async function representativeWallet(db: Kysely<DB>, key: SubjectKey): Promise<string> {
  if (!isIdentityKey(key)) return subjectValueOf(key);
  const identity = await db.selectFrom('identities').select('root_wallet').where('id', '=', subjectValueOf(key)).executeTakeFirst();
  return identity?.root_wallet ?? (await walletsOfSubject(db, key))[0] ?? '';
}
