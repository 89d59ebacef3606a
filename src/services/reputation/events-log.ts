/**
 * The owner-gated audit trail (docs/reputation.md "Events"): every input that moved a wallet's record and every tier
 * change of a subject, newest first, each with its reason code. `all_linked` lists the events of every wallet linked
 * under the subject now and the subject's own tier changes; `this_wallet` those of one wallet. Who may read is the
 * owner: a wallet of the subject (a signed-in wallet on the consumer surface, the key's bound wallet for an agent).
 */
import { sql } from 'kysely';
import { problem } from '../../core/error-codes.ts';
import { subjectIdOf, subjectKeyFromId, type SubjectKey } from '../../core/reputation/subject.ts';
import type { ReputationTier } from '../../core/reputation/tiers.ts';
import type { ReputationDeps } from './deps.ts';
import { currentSubjectKey, isLiveSubject, walletsOfSubject } from './subjects.ts';

export type EventsFilter = 'all_linked' | 'this_wallet';

export interface ReputationEventView {
  id: string;
  kind: 'input' | 'tier';
  reason: string;
  /** The wallet whose input it was, or whose input moved the tier (lowercase). */
  walletAddress: string | null;
  chainId: number | null;
  marketAddress: string | null;
  /** An input: the counts it moved. A tier change: empty. */
  change: Record<string, unknown>;
  tier: { from: ReputationTier | null; to: ReputationTier } | null;
  /** Where it came from: event:<seq>, trade:<tx>:<log>, fill:<id>, attestation, identity. */
  source: string | null;
  occurredAt: string;
  recordedAt: string;
}

export interface ReputationEventsPage {
  subjectId: string;
  filter: EventsFilter;
  /** The wallet `this_wallet` means here (lowercase). */
  walletAddress: string;
  events: ReputationEventView[];
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface EventsQuery {
  filter: EventsFilter;
  limit: number;
  offset: number;
}

/** Who asks for which trail. */
export type EventsTarget =
  | { kind: 'subject'; subjectId: string; caller: string }
  | { kind: 'wallet'; wallet: string; caller: string }
  /** An agent's own: its bound wallet, which is the caller. */
  | { kind: 'own'; wallet: string };

/**
 * The trail of the target's subject. An id not issued here, an ended subject, or a wallet nothing is known of is 404
 * NOT_FOUND (what GET /reputation/... says publicly anyway); a caller that is not a wallet of the subject is 403
 * FORBIDDEN.
 */
export async function reputationEvents(deps: Pick<ReputationDeps, 'db'>, target: EventsTarget, q: EventsQuery): Promise<ReputationEventsPage> {
  const { db } = deps;
  let key: SubjectKey;
  let thisWallet: string;
  if (target.kind === 'subject') {
    const caller = target.caller.toLowerCase();
    const parsed = subjectKeyFromId(target.subjectId);
    if (!parsed || !(await isLiveSubject(db, parsed))) throw problem('NOT_FOUND', 'no reputation subject has this id');
    if ((await currentSubjectKey(db, caller)) !== parsed) {
      throw problem('FORBIDDEN', 'only a wallet of this subject may read its reputation events: the signed-in wallet is not one');
    }
    [key, thisWallet] = [parsed, caller];
  } else if (target.kind === 'wallet') {
    const wallet = target.wallet.toLowerCase();
    const caller = target.caller.toLowerCase();
    key = await currentSubjectKey(db, wallet);
    if (!(await isLiveSubject(db, key))) throw problem('NOT_FOUND', 'nothing is known of this wallet: it has no reputation');
    if (caller !== wallet && (await currentSubjectKey(db, caller)) !== key) {
      throw problem('FORBIDDEN', 'only this wallet, or a wallet linked with it, may read its reputation events: the signed-in wallet is neither');
    }
    thisWallet = wallet;
  } else {
    thisWallet = target.wallet.toLowerCase();
    key = await currentSubjectKey(db, thisWallet);
  }
  const wallets = await walletsOfSubject(db, key);
  let qb = db.selectFrom('reputation_events').selectAll().orderBy('id', 'desc').limit(q.limit + 1).offset(sql<number>`${String(q.offset)}::bigint`);
  qb = q.filter === 'this_wallet' ? qb.where('wallet', '=', thisWallet) : qb.where((eb) => eb.or([eb('wallet', 'in', wallets), eb('subject_key', '=', key)]));
  const rows = await qb.execute();
  return {
    subjectId: subjectIdOf(key),
    filter: q.filter,
    walletAddress: thisWallet,
    events: rows.slice(0, q.limit).map((r) => ({
      id: String(r.id),
      kind: r.kind,
      reason: r.reason,
      walletAddress: r.wallet,
      chainId: r.chain_id,
      marketAddress: r.market,
      change: r.change,
      tier: r.kind === 'tier' ? { from: (r.tier_from as ReputationTier | null) ?? null, to: r.tier_to as ReputationTier } : null,
      source: r.source,
      occurredAt: r.occurred_at.toISOString(),
      recordedAt: r.recorded_at.toISOString(),
    })),
    limit: q.limit,
    offset: q.offset,
    hasMore: rows.length > q.limit,
  };
}
