import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import { counterTerms, questionHash, type CounterChange, type MarketTerms } from '../../../core/markets/terms.ts';
import type { Principal } from '../../../core/principal.ts';
import { isUniqueViolation } from '../../../db/index.ts';
import type { NegotiationsTable } from '../../../db/schema.ts';
import { appendEvent } from '../../events/outbox.ts';
import type { EffectRecorder } from '../../idempotency/idempotency.ts';
import { requireCreatorWallet } from './creator-wallet.ts';
import type { NegotiationDeps, NegotiationRow } from './deps.ts';
import { existingByExternalId } from './existing-by-external-id.ts';
import { NEGOTIATION_TTL_MS } from './expiry.ts';
import { checkCreatorTerms, requireCounterable } from './terms-checks.ts';

export interface ProposeResult {
  negotiation: NegotiationRow;
  /** The negotiation already open or deployed for this externalId (200), not a new one (201). */
  existing: boolean;
}

export type ProposeDeps = Pick<NegotiationDeps, 'db' | 'clock' | 'chain' | 'events' | 'countLive' | 'liveMarketCap' | 'settleLinks'>;

type Countered = { terms: MarketTerms; changes: CounterChange[] } | null;

/**
 * POST /negotiate/propose: a new negotiation, `countered` when the protocol moved a term to its bound (with a
 * negotiation.countered event to the agent), else `proposed`; the open negotiation of the same externalId answers
 * unchanged. Under an Idempotency-Key, `recordEffect` records the new negotiation (by id) in the transaction that
 * inserts it; answering an existing one records nothing (it is not this request's effect).
 */
export async function proposeMarket(deps: ProposeDeps, principal: Principal, terms: MarketTerms, recordEffect?: EffectRecorder): Promise<ProposeResult> {
  const { agentId, wallet } = await requireCreatorWallet(deps.db, principal);
  const creator = wallet.toLowerCase();
  const existing = await existingByExternalId(deps, creator, terms.externalId);
  if (existing.negotiation) return { negotiation: existing.negotiation, existing: true };
  const { problems } = await checkCreatorTerms(deps, terms, creator);
  requireCounterable(problems);
  const countered = counterTerms(terms, problems);
  try {
    return { negotiation: await insertNegotiation(deps, negotiationRow(deps, { agentId, creator, terms, countered }), countered, recordEffect), existing: false };
  } catch (err) {
    // A concurrent propose with the same externalId won the unique index: answer its negotiation.
    if (!isUniqueViolation(err)) throw err;
    const again = await existingByExternalId(deps, creator, terms.externalId);
    if (!again.negotiation) throw err;
    return { negotiation: again.negotiation, existing: true };
  }
}

function negotiationRow(deps: Pick<NegotiationDeps, 'clock' | 'chain'>, p: { agentId: string; creator: string; terms: MarketTerms; countered: Countered }): Insertable<NegotiationsTable> {
  const final = p.countered?.terms ?? p.terms;
  const now = deps.clock.now();
  return {
    id: randomUUID(),
    agent_id: p.agentId,
    creator: p.creator,
    chain_id: deps.chain.chainId,
    status: p.countered ? 'countered' : 'proposed',
    external_id: p.terms.externalId,
    proposed_terms: JSON.stringify(p.terms),
    terms: JSON.stringify(final),
    counter: p.countered ? JSON.stringify(p.countered.changes) : null,
    question_hash: questionHash(final, deps.chain.chainId),
    created_at: now,
    updated_at: now,
    expires_at: new Date(now.getTime() + NEGOTIATION_TTL_MS),
  };
}

/** Inserts the negotiation and, when countered, its negotiation.countered event in the same transaction. */
async function insertNegotiation(deps: ProposeDeps, row: Insertable<NegotiationsTable>, countered: Countered, recordEffect?: EffectRecorder): Promise<NegotiationRow> {
  const inserted = await deps.db.transaction().execute(async (trx) => {
    const saved = await trx.insertInto('negotiations').values(row).returningAll().executeTakeFirstOrThrow();
    await recordEffect?.(trx, saved.id);
    if (countered) {
      const payload = { negotiationId: saved.id, changes: countered.changes, terms: countered.terms, next: deps.settleLinks(saved.id) };
      await appendEvent(trx, deps.clock, { type: 'negotiation.countered', chainId: deps.chain.chainId, agentId: row.agent_id, payload });
    }
    return saved;
  });
  if (countered) deps.events.notify();
  return inserted;
}
