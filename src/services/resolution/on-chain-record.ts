// The resolver's own record of a market, read from the chain: the authority a step is checked against before it is
// prepared or relayed (the projection can be a few blocks behind, at the confirmation depth).
import type { Address } from 'viem';
import { abiWithAllErrors } from '../../chain/artifacts.ts';
import type { VoteDeps } from './deps.ts';

export const PHASES = ['none', 'proposed', 'disputed', 'voting', 'council', 'resolved'] as const;

export interface OnChainRecord {
  phase: (typeof PHASES)[number];
  proposedOutcome: number;
  voteRound: number;
  /** Unix seconds; 0 when unset. */
  challengeDeadline: number;
  voteDeadline: number;
}

export async function onChainRecord(deps: Pick<VoteDeps, 'client' | 'resolver'> & { guard?: VoteDeps['guard'] }, market: string): Promise<OnChainRecord> {
  const read = deps.guard ?? ((fn) => fn());
  const r = (await read(() => deps.client.readContract({ address: deps.resolver, abi: abiWithAllErrors('MarketResolver'), functionName: 'resolutionOf', args: [market as Address] }))) as {
    phase: number;
    proposedOutcome: number;
    voteRound: number;
    challengeDeadline: bigint;
    voteDeadline: bigint;
  };
  return { phase: PHASES[r.phase] ?? 'none', proposedOutcome: r.proposedOutcome, voteRound: r.voteRound, challengeDeadline: Number(r.challengeDeadline), voteDeadline: Number(r.voteDeadline) };
}
