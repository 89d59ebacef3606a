/**
 * The create loop: preflight → propose → accept | reject → prepare-deploy → commit-deploy (docs/markets.md).
 * The creator is an agent with a bound wallet; that wallet signs and sends the factory transaction itself, and
 * commit-deploy registers the market from the mined receipt (market.created and market.live go into the events
 * outbox in the same transaction). The indexer later confirms the same creation from its log.
 * One operation per file in negotiation/; this binds them to their dependencies. The writes take the
 * Idempotency-Key's `recordEffect`, called inside the transaction that makes their effect with the negotiation id;
 * `get` and `committedDeploy` rebuild their answers from that id after a crash.
 */
import type { Hex } from 'viem';
import type { MarketTerms } from '../../core/markets/terms.ts';
import type { Principal } from '../../core/principal.ts';
import { acceptNegotiation } from './negotiation/accept-negotiation.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { commitDeploy } from './negotiation/commit-deploy.ts';
import type { NegotiationDeps, NegotiationRow } from './negotiation/deps.ts';
import { getCommittedDeploy } from './negotiation/get-committed-deploy.ts';
import { getNegotiation } from './negotiation/get-negotiation.ts';
import { preflightProposal, type PreflightResult } from './negotiation/preflight.ts';
import { prepareDeploy, type PreparedDeploy } from './negotiation/prepare-deploy.ts';
import { proposeMarket, type ProposeResult } from './negotiation/propose.ts';
import type { CommittedDeploy } from './negotiation/record-deployment.ts';
import { rejectNegotiation } from './negotiation/reject-negotiation.ts';

export type { NegotiationRow } from './negotiation/deps.ts';
export type { CommittedDeploy } from './negotiation/record-deployment.ts';

export interface NegotiationService {
  preflight(principal: Principal, terms: MarketTerms): Promise<PreflightResult>;
  propose(principal: Principal, terms: MarketTerms, recordEffect?: EffectRecorder): Promise<ProposeResult>;
  accept(principal: Principal, id: string, recordEffect?: EffectRecorder): Promise<NegotiationRow>;
  reject(principal: Principal, id: string, recordEffect?: EffectRecorder): Promise<NegotiationRow>;
  prepareDeploy(principal: Principal, id: string): Promise<PreparedDeploy>;
  commitDeploy(principal: Principal, id: string, txHash: Hex, recordEffect?: EffectRecorder): Promise<CommittedDeploy>;
  get(principal: Principal, id: string): Promise<NegotiationRow>;
  /** A deployed negotiation with its market, as they are now (the answer a retry of its commit-deploy gets after a crash). */
  committedDeploy(principal: Principal, id: string): Promise<CommittedDeploy>;
}

export function createNegotiationService(deps: NegotiationDeps): NegotiationService {
  return {
    preflight: (principal, terms) => preflightProposal(deps, principal, terms),
    propose: (principal, terms, recordEffect) => proposeMarket(deps, principal, terms, recordEffect),
    accept: (principal, id, recordEffect) => acceptNegotiation(deps, principal, id, recordEffect),
    reject: (principal, id, recordEffect) => rejectNegotiation(deps, principal, id, recordEffect),
    prepareDeploy: (principal, id) => prepareDeploy(deps, principal, id),
    commitDeploy: (principal, id, txHash, recordEffect) => commitDeploy(deps, principal, id, txHash, recordEffect),
    get: (principal, id) => getNegotiation(deps, principal, id),
    committedDeploy: (principal, id) => getCommittedDeploy(deps, principal, id),
  };
}
