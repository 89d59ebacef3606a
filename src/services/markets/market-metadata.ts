// A market's text: the terms of the negotiation it was created through, or placeholders for a creation sent
// outside the create loop (its question stays null, so it is never listed).
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** A market's text, from the negotiation of the create loop it went through. */
export interface Metadata {
  negotiationId: string;
  question: string;
  description: string | null;
  category: string;
  outcomes: string[];
  resolutionSource: string | null;
  externalId: string | null;
}

/**
 * The terms the creator negotiated for this question hash, if the market went through the create loop (or at
 * least its propose and accept steps); null for a creation sent outside it. `negotiationId` pins the negotiation
 * when the caller knows it (commit-deploy).
 */
export async function metadataFor(trx: Transaction<DB>, creator: string, questionHash: string, chainId: number, negotiationId?: string): Promise<Metadata | null> {
  let q = trx
    .selectFrom('negotiations')
    .select(['id', 'terms'])
    .where('creator', '=', creator)
    .where('question_hash', '=', questionHash)
    .where('chain_id', '=', chainId)
    .where('status', 'in', ['accepted', 'deployed']);
  if (negotiationId !== undefined) q = q.where('id', '=', negotiationId);
  const row = await q.orderBy('created_at', 'desc').executeTakeFirst();
  if (!row) return null;
  const t = row.terms as { question: string; description?: string | null; category: string; outcomes: string[]; resolutionSource?: string | null; externalId?: string | null };
  return {
    negotiationId: row.id,
    question: t.question,
    description: t.description ?? null,
    category: t.category,
    outcomes: t.outcomes,
    resolutionSource: t.resolutionSource ?? null,
    externalId: t.externalId ?? null,
  };
}

/** Outcome names of a market created without a negotiation: its question is null, so it is never listed. */
export const placeholderOutcomes = (count: number): string[] => Array.from({ length: count }, (_, i) => `Outcome ${i + 1}`);

/** The question events carry for a market without a negotiation (records.ts reads it the same way). */
export const placeholderQuestion = (address: string): string => `Unregistered market ${address}`;
