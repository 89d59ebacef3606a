/**
 * The steps of a market's resolution (docs/resolution.md "Actions"): a creator's relayed proposal and its preview,
 * a challenge prepared for the challenger's wallet, finalize, council signatures and the council decision they set
 * off, and an operator's integrity restart. This binds the operations of this folder.
 */
import { prepareChallenge, type PrepareChallengeInput, type PreparedChallenge } from './challenge.ts';
import { decideByCouncil } from './council-decide.ts';
import { signAsCouncil, type CouncilSignature, type CouncilSignInput } from './council-sign.ts';
import type { ActionDeps } from './deps.ts';
import { relayFinalize } from './finalize.ts';
import { relayProposal, type ProposeInput, type RelayedProposal } from './propose.ts';
import type { RelayedStep } from './relay-step.ts';
import { requestIntegrityRestart } from './restart.ts';
import { simulateProposal, type ProposalPreview, type SimulateProposalInput } from './simulate.ts';

export type { PreparedChallenge } from './challenge.ts';
export type { CouncilSignature } from './council-sign.ts';
export type { RelayedProposal } from './propose.ts';
export type { RelayedStep } from './relay-step.ts';
export type { ProposalPreview } from './simulate.ts';

export interface ResolutionActionService {
  propose(input: ProposeInput): Promise<RelayedProposal>;
  simulate(input: SimulateProposalInput): Promise<ProposalPreview>;
  prepareChallenge(input: PrepareChallengeInput): Promise<PreparedChallenge>;
  finalize(market: string): Promise<RelayedStep & { market: string; chainId: number }>;
  councilSign(input: CouncilSignInput): Promise<CouncilSignature>;
  /** Sends the council decision of a market whose outcome holds the threshold (the keeper's retry); null when none. */
  decideByCouncil(market: string): Promise<RelayedStep | null>;
  requestRestart(market: string, reason: string): ReturnType<typeof requestIntegrityRestart>;
}

export function createResolutionActionService(deps: ActionDeps): ResolutionActionService {
  return {
    propose: (input) => relayProposal(deps, input),
    simulate: (input) => simulateProposal(deps, input),
    prepareChallenge: (input) => prepareChallenge(deps, input),
    finalize: (market) => relayFinalize(deps, market),
    councilSign: (input) => signAsCouncil(deps, input),
    decideByCouncil: (market) => decideByCouncil(deps, market),
    requestRestart: (market, reason) => requestIntegrityRestart(deps, market, reason),
  };
}
