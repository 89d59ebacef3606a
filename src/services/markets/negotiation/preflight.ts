import type { Hex } from 'viem';
import { questionHash, type MarketTerms, type TermsProblem } from '../../../core/markets/terms.ts';
import type { Principal } from '../../../core/principal.ts';
import type { MarketRow } from '../records.ts';
import { chargesFor, type Charges } from './charges.ts';
import { requireCreatorWallet } from './creator-wallet.ts';
import type { NegotiationDeps } from './deps.ts';
import { existingByExternalId } from './existing-by-external-id.ts';
import { readinessOf, type Readiness } from './readiness.ts';
import { checkCreatorTerms } from './terms-checks.ts';

export interface PreflightResult extends Readiness {
  ok: boolean;
  problems: TermsProblem[];
  questionHash: Hex;
  charges: Charges;
  liveMarkets: { count: number; max: number };
  existingMarket: MarketRow | null;
  existingNegotiationId: string | null;
}

export type PreflightDeps = Pick<NegotiationDeps, 'db' | 'clock' | 'chain' | 'countLive' | 'liveMarketCap'>;

/** POST /negotiate/preflight: every problem of the terms at once, what creation costs and what is missing; changes nothing. */
export async function preflightProposal(deps: PreflightDeps, principal: Principal, terms: MarketTerms): Promise<PreflightResult> {
  const { wallet: creator } = await requireCreatorWallet(deps.db, principal);
  const lower = creator.toLowerCase();
  const existing = await existingByExternalId(deps, lower, terms.externalId);
  const { problems, live, cap } = await checkCreatorTerms(deps, terms, lower);
  const charges = await chargesFor(deps.chain, terms);
  const { approvalsMissing, balancesShort } = await readinessOf(deps.chain, creator, charges);
  return {
    ok: problems.length === 0 && existing.market === null,
    problems,
    questionHash: questionHash(terms, deps.chain.chainId),
    charges,
    approvalsMissing,
    balancesShort,
    liveMarkets: { count: live, max: cap },
    existingMarket: existing.market,
    existingNegotiationId: existing.negotiation?.id ?? null,
  };
}
