/**
 * The resolution queue (GET /resolution/queue): markets awaiting the caller's action, by chain time — proposals its
 * wallets owe as creator, open vote rounds its verified identity has not voted in, council reviews where one of its
 * wallets is a member that has not signed, and, when asked, finalizable proposals anyone may finalize
 * (docs/resolution-reads.md). The same rules as the state read's actions, as bounded queries.
 */
import { sql } from 'kysely';
import type { Principal } from '../../core/principal.ts';
import { voteSessionId } from '../../core/resolution/votes.ts';
import { chainNow } from './deps.ts';
import { councilOf, resolutionCallerOf, type ResolutionReadDeps } from './read-context.ts';

export type QueueAction = 'propose' | 'vote' | 'council_sign' | 'finalize';

export interface ResolutionQueueItem {
  chainId: number;
  marketAddress: string;
  question: string;
  action: QueueAction;
  /** propose: resolveBy; vote: the round's deadline; council_sign and finalize: none. */
  dueBy: Date | null;
  /** vote only: the session to cast into. */
  sessionId: string | null;
}

export interface ResolutionQueueParams {
  principal: Principal;
  /** 1..200. */
  limit: number;
  /** Adds the proposals anyone may finalize now. */
  includeAnyone: boolean;
}

export interface ResolutionQueue {
  chainTime: Date;
  items: ResolutionQueueItem[];
}

const ORDER: Record<QueueAction, number> = { propose: 0, vote: 1, council_sign: 2, finalize: 3 };
const titleOf = (question: string | null, address: string) => question ?? `Unregistered market ${address}`;

export async function resolutionQueue(deps: ResolutionReadDeps, p: ResolutionQueueParams): Promise<ResolutionQueue> {
  const { db, chainId } = deps;
  const [now, caller] = await Promise.all([deps.guard(() => chainNow(deps)), resolutionCallerOf(deps, p.principal)]);
  const items: ResolutionQueueItem[] = [];

  if (caller.wallets.length > 0) {
    // Due proposals: the caller's closed markets with no record yet, still before resolveBy. (An open market may be
    // proposed early — GET /markets/{address}/resolution lists it as available — but it is not due.)
    const proposals = await db
      .selectFrom('markets as m')
      .select(['m.address', 'm.question', 'm.resolve_by'])
      .where('m.chain_id', '=', chainId)
      .where('m.creator', 'in', caller.wallets)
      .where('m.state', '=', 'closed')
      .where('m.resolve_by', '>=', now)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('market_resolutions as r').select('r.market').whereRef('r.chain_id', '=', 'm.chain_id').whereRef('r.market', '=', 'm.address'))))
      .orderBy('m.resolve_by')
      .orderBy('m.address')
      .limit(p.limit)
      .execute();
    for (const m of proposals) items.push({ chainId, marketAddress: m.address, question: titleOf(m.question, m.address), action: 'propose', dueBy: m.resolve_by, sessionId: null });
  }

  if (caller.verified && caller.identityKey !== null) {
    const identityKey = caller.identityKey;
    const rounds = await db
      .selectFrom('market_resolutions as r')
      .innerJoin('markets as m', (j) => j.onRef('m.chain_id', '=', 'r.chain_id').onRef('m.address', '=', 'r.market'))
      .select(['r.market', 'm.question', 'r.vote_round', 'r.vote_deadline'])
      .where('r.chain_id', '=', chainId)
      .where('r.phase', '=', 'voting')
      .where('r.vote_deadline', '>', now)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('vote_ballots as b')
              .select('b.id')
              .whereRef('b.chain_id', '=', 'r.chain_id')
              .whereRef('b.market', '=', 'r.market')
              .whereRef('b.round', '=', 'r.vote_round')
              .where('b.identity_key', '=', identityKey),
          ),
        ),
      )
      .orderBy('r.vote_deadline')
      .orderBy('r.market')
      .limit(p.limit)
      .execute();
    for (const r of rounds) {
      items.push({ chainId, marketAddress: r.market, question: titleOf(r.question, r.market), action: 'vote', dueBy: r.vote_deadline, sessionId: voteSessionId(chainId, r.market, r.vote_round) });
    }
  }

  const council = caller.wallets.length > 0 ? await councilOf(deps) : null;
  const seats = council ? caller.wallets.filter((w) => council.members.includes(w)) : [];
  if (seats.length > 0) {
    // A review is the caller's while one of its member wallets has not signed this round.
    const reviews = await db
      .selectFrom('market_resolutions as r')
      .innerJoin('markets as m', (j) => j.onRef('m.chain_id', '=', 'r.chain_id').onRef('m.address', '=', 'r.market'))
      .select(['r.market', 'm.question'])
      .where('r.chain_id', '=', chainId)
      .where('r.phase', '=', 'council')
      .where(
        sql<boolean>`(SELECT count(*) FROM council_signatures s WHERE s.chain_id = r.chain_id AND s.market = r.market AND s.round = r.vote_round AND s.signer IN (${sql.join(seats)})) < ${seats.length}`,
      )
      .orderBy('r.updated_at')
      .orderBy('r.market')
      .limit(p.limit)
      .execute();
    for (const r of reviews) items.push({ chainId, marketAddress: r.market, question: titleOf(r.question, r.market), action: 'council_sign', dueBy: null, sessionId: null });
  }

  if (p.includeAnyone) {
    const finalizable = await db
      .selectFrom('market_resolutions as r')
      .innerJoin('markets as m', (j) => j.onRef('m.chain_id', '=', 'r.chain_id').onRef('m.address', '=', 'r.market'))
      .select(['r.market', 'm.question'])
      .where('r.chain_id', '=', chainId)
      .where('r.phase', '=', 'proposed')
      .where('r.challenge_deadline', '<=', now)
      .orderBy('r.challenge_deadline')
      .orderBy('r.market')
      .limit(p.limit)
      .execute();
    for (const r of finalizable) items.push({ chainId, marketAddress: r.market, question: titleOf(r.question, r.market), action: 'finalize', dueBy: null, sessionId: null });
  }

  // The most pressing first: the earliest deadline, then the undated ones, in a stable order.
  items.sort(
    (a, b) =>
      (a.dueBy?.getTime() ?? Infinity) - (b.dueBy?.getTime() ?? Infinity) || ORDER[a.action] - ORDER[b.action] || (a.marketAddress < b.marketAddress ? -1 : a.marketAddress > b.marketAddress ? 1 : 0),
  );
  return { chainTime: now, items: items.slice(0, p.limit) };
}
