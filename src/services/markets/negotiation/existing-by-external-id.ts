import type { NegotiationDeps, NegotiationRow } from './deps.ts';
import type { MarketRow } from '../records.ts';

/** What the creator already made under an externalId: its market, and its open or deployed negotiation. */
export interface ExistingByExternalId {
  market: MarketRow | null;
  negotiation: NegotiationRow | null;
}

export async function existingByExternalId(deps: Pick<NegotiationDeps, 'db' | 'chain'>, creator: string, externalId: string | null): Promise<ExistingByExternalId> {
  if (externalId === null) return { market: null, negotiation: null };
  const market = await deps.db.selectFrom('markets').selectAll().where('chain_id', '=', deps.chain.chainId).where('creator', '=', creator).where('external_id', '=', externalId).executeTakeFirst();
  const negotiation = await deps.db.selectFrom('negotiations').selectAll().where('creator', '=', creator).where('external_id', '=', externalId).where('status', '<>', 'rejected').executeTakeFirst();
  return { market: market ?? null, negotiation: negotiation ?? null };
}
