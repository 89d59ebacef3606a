import type { Address, Hex } from 'viem';
import { problem } from '../../../core/error-codes.ts';
import type { MarketTerms } from '../../../core/markets/terms.ts';
import type { Principal } from '../../../core/principal.ts';
import { chargesFor, type Charges } from './charges.ts';
import { creatorWalletOf } from './creator-wallet.ts';
import type { NegotiationDeps, NegotiationRow } from './deps.ts';
import { automatedDeployCall, orderBookDeployCall } from './deploy-call.ts';
import { requireUnexpired } from './expiry.ts';
import { loadNegotiationWithAgent } from './load-negotiation.ts';
import { readinessOf, type Readiness } from './readiness.ts';
import { requireTermsStillHold } from './terms-checks.ts';

/** The factory transaction for the creator's wallet to sign and send. */
export interface DeployTransaction {
  chainId: number;
  from: Address;
  to: Address;
  data: Hex;
  value: string;
}

export interface PreparedDeploy extends Readiness {
  negotiation: NegotiationRow;
  charges: Charges;
  predictedMarket: Address;
  transaction: DeployTransaction;
}

export type PrepareDeployDeps = Pick<NegotiationDeps, 'db' | 'clock' | 'chain' | 'countLive' | 'liveMarketCap'>;

/**
 * POST /negotiate/{id}/prepare-deploy: for an accepted negotiation, the approvals and balances still missing and the
 * factory transaction of its lane. The terms are checked again (TERMS_REJECTED, LIVE_MARKET_CAP_REACHED). Changes nothing.
 */
export async function prepareDeploy(deps: PrepareDeployDeps, principal: Principal, id: string): Promise<PreparedDeploy> {
  const { row, creator } = await requireDeployable(deps, principal, id);
  const terms = row.terms as unknown as MarketTerms;
  await requireTermsStillHold(deps, terms, row.creator);
  const charges = await chargesFor(deps.chain, terms);
  const { approvalsMissing, balancesShort } = await readinessOf(deps.chain, creator, charges);
  const call = terms.pricingModel === 'ORDERBOOK' ? orderBookDeployCall : automatedDeployCall;
  const { predictedMarket, data } = await call(deps.chain, { row, terms, charges, creator });
  return { negotiation: row, charges, approvalsMissing, balancesShort, predictedMarket, transaction: { chainId: deps.chain.chainId, from: creator, to: charges.factory, data, value: '0' } };
}

/** An accepted, unexpired negotiation whose agent still has the wallet it proposed with. */
async function requireDeployable(deps: Pick<NegotiationDeps, 'db' | 'clock'>, principal: Principal, id: string): Promise<{ row: NegotiationRow; creator: Address }> {
  const { row, agent } = await loadNegotiationWithAgent(deps.db, principal, id);
  requireUnexpired(row, deps.clock.now(), id);
  if (row.status !== 'accepted') throw problem('NEGOTIATION_STATE', `negotiation ${id} is ${row.status}; prepare-deploy needs accepted`);
  const { wallet: creator } = creatorWalletOf(agent);
  if (creator.toLowerCase() !== row.creator) throw problem('NEGOTIATION_STATE', `the agent's wallet changed since the proposal (was ${row.creator}); propose again`);
  return { row, creator };
}
