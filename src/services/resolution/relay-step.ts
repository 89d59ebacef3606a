/**
 * How the protocol sends a resolution step it pays gas for (a relayed proposal, a finalize, a council decision):
 * simulated first, so a step the resolver would refuse answers its problem code and costs nothing; then submitted
 * once under an operation id derived from what is sent, so a repeat of the same request, or the keeper sending the same
 * step, finds the transaction already there instead of sending a second one.
 */
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { abiWithAllErrors } from '../../chain/artifacts.ts';
import type { RelayedTx } from '../../chain/relayer.ts';
import { currentAttempt, revertName } from '../chain/relay-attempts.ts';
import { problem, type ErrorCode } from '../../core/error-codes.ts';
import { isProblemError } from '../../core/errors.ts';
import type { ActionDeps } from './deps.ts';

export type RelayedStepState = 'submitted' | 'confirmed' | 'reverted' | 'dropped';

export interface RelayedStep {
  operationId: string;
  txHash: string;
  /** submitted: broadcast, not yet at the chain's confirmation depth; the indexer announces the result. */
  state: RelayedStepState;
}

/** The resolver's refusals that a caller can act on, by error name; anything else is INTERNAL_ERROR. */
const REFUSALS: Record<string, { code: ErrorCode; say: string }> = {
  WrongPhase: { code: 'RESOLUTION_STEP_REFUSED', say: 'the market is not in the phase this step needs' },
  ResolveByPassed: { code: 'RESOLUTION_STEP_REFUSED', say: 'resolveBy has passed: the creator can no longer propose (the vote decides)' },
  NotMarketOfThisResolver: { code: 'RESOLUTION_STEP_REFUSED', say: 'this market was created before the resolver and cannot resolve' },
  ChallengeWindowClosed: { code: 'CHALLENGE_WINDOW_CLOSED', say: 'the challenge window has closed' },
  ChallengeWindowOpen: { code: 'CHALLENGE_WINDOW_OPEN', say: 'the challenge window is still open' },
  InvalidOutcome: { code: 'INVALID_PAYLOAD', say: 'the market has no such outcome' },
  CounterOutcomeIsProposed: { code: 'INVALID_PAYLOAD', say: 'the counter-outcome is the proposed outcome' },
  SignatureExpired: { code: 'PROPOSAL_SIGNATURE_INVALID', say: 'the signed deadline has passed' },
  BadSignature: { code: 'PROPOSAL_SIGNATURE_INVALID', say: "the signature is not the market creator's" },
  NotCouncilMember: { code: 'NOT_COUNCIL_MEMBER', say: 'a signer is not a council member' },
  NotEnoughCouncilSignatures: { code: 'RESOLUTION_STEP_REFUSED', say: 'fewer council signatures than the threshold' },
  CouncilSignersNotAscending: { code: 'COUNCIL_SIGNATURE_INVALID', say: 'the council signers are not in ascending order' },
  NoMoreVoteRounds: { code: 'RESOLUTION_STEP_REFUSED', say: 'the market had its two vote rounds' },
  CouncilNotSet: { code: 'RESOLUTION_STEP_REFUSED', say: 'the resolver has no council' },
};


/** Simulates `functionName(args)` on the resolver as the relayer; a refusal becomes its problem, anything else is rethrown. */
export async function simulateStep(deps: Pick<ActionDeps, 'client' | 'resolver' | 'guard'> & { relayer: { address: Address } }, functionName: string, args: readonly unknown[], refusals: Record<string, { code: ErrorCode; say: string }> = {}): Promise<void> {
  try {
    await deps.guard(() => deps.client.simulateContract({ address: deps.resolver, abi: abiWithAllErrors('MarketResolver'), functionName, args, account: deps.relayer.address } as never));
  } catch (err) {
    if (isProblemError(err)) throw err;
    const name = revertName(err);
    const refusal = name ? (refusals[name] ?? REFUSALS[name]) : undefined;
    if (refusal) throw problem(refusal.code, `the resolver refuses ${functionName}: ${refusal.say} (${name})`);
    throw err;
  }
}


/**
 * Simulates, then submits under the step's current attempt (`step` must name the step exactly). A live attempt is
 * answered as it stands: the step was relayed (a prepared one is another call's, mid-send, or a stopped run's, which
 * the relayer's resume broadcasts).
 */
export async function relayStep(deps: ActionDeps, step: string, functionName: string, args: readonly unknown[], refusals?: Record<string, { code: ErrorCode; say: string }>): Promise<RelayedStep> {
  const { operationId, live } = await currentAttempt(deps.relayer, step);
  if (live) return stepOf(live);
  await simulateStep(deps, functionName, args, refusals);
  const data = encodeFunctionData({ abi: abiWithAllErrors('MarketResolver'), functionName, args } as never) as Hex;
  let tx: RelayedTx;
  try {
    tx = await deps.guard(() => deps.relayer.submit({ operationId, idempotencyKey: operationId, to: deps.resolver, data }));
  } catch (err) {
    // A concurrent call sent this step first (with its own arguments, e.g. another set of council signers): its
    // transaction is the step's.
    const sent = await deps.relayer.get(operationId);
    if (!sent || isProblemError(err)) throw err;
    return stepOf(sent);
  }
  deps.log.info({ operationId, txHash: tx.txHash, state: tx.state }, 'resolution: relayed a step');
  return stepOf(tx);
}

const stepOf = (tx: { operationId: string; txHash: string; state: string }): RelayedStep => ({
  operationId: tx.operationId,
  txHash: tx.txHash,
  state: tx.state === 'prepared' ? 'submitted' : (tx.state as RelayedStepState),
});
