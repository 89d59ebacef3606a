/**
 * A creator's proposal, relayed (POST /markets/{address}/resolution/propose): the creator signs the EIP-712
 * Proposal(market, outcome, deadline) under the resolver's domain and the protocol sends proposeFor, paying the gas.
 * The resolver checks the signature against the market's creator, so the relay cannot change what was signed; the
 * operation id names the signature, so the same signed proposal is sent once however often it is posted
 * (docs/resolution.md "Actions").
 */
import { keccak256, type Address, type Hex } from 'viem';
import { problem } from '../../core/error-codes.ts';
import { proposalTypedData } from '../../core/resolution/votes.ts';
import { chainNow, signedBy, type ActionDeps } from './deps.ts';
import { relayStep, type RelayedStep } from './relay-step.ts';
import { resolvableMarket } from './resolvable-market.ts';

/** How far ahead of chain time a signed deadline must be for the relay to be sent. */
export const DEADLINE_MARGIN_SECONDS = 60;

export interface ProposeInput {
  market: string;
  /** 1..outcomeCount, or 0 for void. */
  outcome: number;
  /** Unix seconds: the relay must be mined by then (signed). */
  deadline: bigint;
  signature: string;
  /** Over MCP, the wallet the call proved: it must be the creator's. */
  provenWallet?: string | null;
}

export type ProposeError = 'MARKET_NOT_FOUND' | 'INVALID_PAYLOAD' | 'PROPOSAL_SIGNATURE_INVALID' | 'RESOLUTION_STEP_REFUSED' | 'FORBIDDEN';

export interface RelayedProposal extends RelayedStep {
  market: string;
  chainId: number;
  outcome: number;
  isVoid: boolean;
  proposer: string;
}

export async function relayProposal(deps: ActionDeps, input: ProposeInput): Promise<RelayedProposal> {
  const market = await resolvableMarket(deps, input.market);
  if (input.provenWallet && input.provenWallet.toLowerCase() !== market.creator) throw problem('FORBIDDEN', `the proven wallet is not the creator of ${market.address}: prove the creator's wallet`);
  if (input.outcome > market.outcomeCount) throw problem('INVALID_PAYLOAD', `outcome must be 0 (void) or 1..${market.outcomeCount}`, { errors: [{ path: 'body.outcome', message: 'no such outcome' }] });
  const typed = proposalTypedData(deps.chainId, deps.resolver, { market: market.address as Address, outcome: input.outcome, deadline: input.deadline });
  // A contract wallet's signature (ERC-1271) counts too, as the resolver's check does.
  const valid = await signedBy(deps, market.creator as Address, { ...typed, signature: input.signature as Hex } as never);
  if (!valid) throw problem('PROPOSAL_SIGNATURE_INVALID', `signature is not the creator's (${market.creator}) over Proposal(market, outcome, deadline) under the resolver domain`);
  // The relay is mined after this check: a deadline about to pass would revert at the protocol's cost.
  if (input.deadline < BigInt(Math.floor((await chainNow(deps)).getTime() / 1000) + DEADLINE_MARGIN_SECONDS)) {
    throw problem('PROPOSAL_SIGNATURE_INVALID', `the signed deadline ${input.deadline} is less than ${DEADLINE_MARGIN_SECONDS} s ahead of chain time: sign a fresh proposal`);
  }
  // One relayed proposal in flight per market: another signature waits for it to settle (and then the resolver refuses
  // it, or, if it reverted, takes this one). Nobody makes the protocol pay for a queue of proposals.
  const inFlight = await deps.db
    .selectFrom('relayer_transactions')
    .select('operation_id')
    .where('operation_id', 'like', `resolution:${deps.chainId}:${market.address}:propose:%`)
    .where('state', 'in', ['prepared', 'submitted'])
    .executeTakeFirst();
  const operationId = `resolution:${deps.chainId}:${market.address}:propose:${keccak256(input.signature as Hex).slice(2, 18)}`;
  if (inFlight && !inFlight.operation_id.startsWith(operationId)) throw problem('RESOLUTION_STEP_REFUSED', `another signed proposal of ${market.address} is being sent (${inFlight.operation_id}); wait for it`);
  const step = await relayStep(deps, operationId, 'proposeFor', [market.address, input.outcome, input.deadline, input.signature]);
  return { ...step, market: market.address, chainId: deps.chainId, outcome: input.outcome, isVoid: input.outcome === 0, proposer: market.creator };
}
