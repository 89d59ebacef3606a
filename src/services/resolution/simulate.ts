/**
 * A preview of a proposal (POST /resolve/simulate, REST-only): whether the resolver would take the creator's proposal
 * of `outcome` now — the creator's propose, simulated on chain from the creator's address — and what it would set in
 * motion: the challenge deadline by chain time, when it becomes final if nobody challenges, and what is at risk (the
 * creator's bond, slashed if a dispute overturns the proposal; a challenger's bond). Changes nothing
 * (docs/resolution.md "Actions").
 */
import type { Address } from 'viem';
import { abiWithAllErrors } from '../../chain/artifacts.ts';
import { ERROR_CODES, problem, type ErrorCode } from '../../core/error-codes.ts';
import { isProblemError } from '../../core/errors.ts';
import { chainNow, type VoteDeps } from './deps.ts';
import { onChainRecord, type OnChainRecord } from './on-chain-record.ts';
import { simulateStep } from './relay-step.ts';
import { resolvableMarket } from './resolvable-market.ts';

export interface SimulateProposalInput {
  market: string;
  outcome: number;
}

export interface ProposalPreview {
  market: string;
  chainId: number;
  outcome: number;
  isVoid: boolean;
  creator: string;
  /** The resolver's phase now (none before any proposal). */
  phase: OnChainRecord['phase'];
  /** Would the resolver take the creator's proposal now; if not, the problem a relayed proposal would answer. */
  allowed: boolean;
  refusal: { code: ErrorCode; detail: string } | null;
  chainTime: Date;
  resolveBy: Date;
  challengeWindowSeconds: number;
  /** Set when allowed: the window a proposal now would open, which is also when it becomes final undisputed. */
  challengeDeadline: Date | null;
  eligibleAt: Date | null;
  atRisk: { creationBond: bigint; challengeBond: bigint; token: 'PM'; creatorSlashedIf: string };
}

export async function simulateProposal(deps: VoteDeps & { relayer: { address: Address } }, input: SimulateProposalInput): Promise<ProposalPreview> {
  const market = await resolvableMarket(deps, input.market);
  if (input.outcome > market.outcomeCount) throw problem('INVALID_PAYLOAD', `outcome must be 0 (void) or 1..${market.outcomeCount}`, { errors: [{ path: 'body.outcome', message: 'no such outcome' }] });
  const abi = abiWithAllErrors('MarketResolver');
  const [record, now, window, challengeBond, bondRow] = await Promise.all([
    onChainRecord(deps, market.address),
    chainNow(deps),
    deps.guard(() => deps.client.readContract({ address: deps.resolver, abi, functionName: 'challengeWindow' })).then(Number),
    deps.guard(() => deps.client.readContract({ address: deps.resolver, abi, functionName: 'challengeBond' })) as Promise<bigint>,
    deps.db.selectFrom('markets').select('bond').where('chain_id', '=', deps.chainId).where('address', '=', market.address).executeTakeFirstOrThrow(),
  ]);
  let refusal: ProposalPreview['refusal'] = null;
  try {
    // As the creator would send it: the resolver checks phase, resolveBy and the outcome.
    await simulateStep({ ...deps, relayer: { address: market.creator as Address } } as never, 'propose', [market.address, input.outcome]);
  } catch (err) {
    if (!isProblemError(err)) throw err;
    refusal = { code: err.code as ErrorCode, detail: err.detail };
  }
  const deadline = refusal ? null : new Date(now.getTime() + window * 1000);
  return {
    market: market.address,
    chainId: deps.chainId,
    outcome: input.outcome,
    isVoid: input.outcome === 0,
    creator: market.creator,
    phase: record.phase,
    allowed: refusal === null,
    refusal: refusal && { code: refusal.code in ERROR_CODES ? refusal.code : 'RESOLUTION_STEP_REFUSED', detail: refusal.detail },
    chainTime: now,
    resolveBy: market.resolveBy,
    challengeWindowSeconds: window,
    challengeDeadline: deadline,
    eligibleAt: deadline,
    atRisk: {
      creationBond: BigInt(bondRow.bond),
      challengeBond,
      token: 'PM',
      creatorSlashedIf: 'a challenge leads to a final outcome other than the proposal (by vote or council), or no proposal by resolveBy',
    },
  };
}
