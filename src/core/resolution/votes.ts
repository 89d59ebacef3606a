/**
 * The human vote, as anyone can recount it (docs/resolution.md "Votes"): a ballot is an EIP-712 signature by a wallet
 * over (market, round, outcome) under the resolver's domain; one ballot counts per identity (linked wallets vote as
 * one); the verdict follows from the counted ballots alone; the commitment the resolver records on chain is a hash
 * of the counted ballots in a fixed order. Pure: no I/O.
 */
import { encodeAbiParameters, keccak256, type Address, type Hex, type TypedDataDomain } from 'viem';

/** EIP-712 type of a ballot. `outcome` is 1-indexed; 0 votes Invalid/Void. */
export const BALLOT_TYPES = {
  Ballot: [
    { name: 'market', type: 'address' },
    { name: 'round', type: 'uint8' },
    { name: 'outcome', type: 'uint8' },
  ],
} as const;

/** The resolver's own EIP-712 domain: proposals, council decisions and ballots are all signed under it. */
export const BALLOT_DOMAIN_NAME = 'MarketResolver';
export const BALLOT_DOMAIN_VERSION = '1';

export function ballotDomain(chainId: number, resolver: Address): TypedDataDomain {
  return { name: BALLOT_DOMAIN_NAME, version: BALLOT_DOMAIN_VERSION, chainId, verifyingContract: resolver };
}

/** What a voter signs (viem signTypedData / verifyTypedData arguments, without the signature). */
export function ballotTypedData(chainId: number, resolver: Address, ballot: { market: Address; round: number; outcome: number }) {
  return {
    domain: ballotDomain(chainId, resolver),
    types: BALLOT_TYPES,
    primaryType: 'Ballot' as const,
    message: { market: ballot.market, round: ballot.round, outcome: ballot.outcome },
  };
}

/** The handle ballot surfaces accept for one session: chain, market and round. */
export const voteSessionId = (chainId: number, market: string, round: number): string => `${chainId}:${market.toLowerCase()}:${round}`;

export function parseVoteSessionId(id: string): { chainId: number; market: Address; round: number } | null {
  const m = /^([1-9][0-9]{0,15}):(0x[0-9a-f]{40}):([12])$/.exec(id);
  return m ? { chainId: Number(m[1]), market: m[2] as Address, round: Number(m[3]) } : null;
}

export interface CountedBallot {
  /** Lowercase. */
  wallet: string;
  outcome: number;
  signature: Hex;
}

/** One ballot's leaf: keccak256(abi.encode(wallet, outcome, keccak256(signature))). */
export function ballotLeaf(b: CountedBallot): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint8' }, { type: 'bytes32' }], [b.wallet as Address, b.outcome, keccak256(b.signature)]));
}

/**
 * The commitment to a counted ballot set: keccak256 of the leaves sorted ascending, concatenated (the zero hash for
 * no ballots). Order-free, so a recount needs only the set.
 */
export function ballotsRoot(ballots: readonly CountedBallot[]): Hex {
  if (ballots.length === 0) return `0x${'00'.repeat(32)}`;
  const leaves = ballots.map(ballotLeaf).sort();
  return keccak256(`0x${leaves.map((l) => l.slice(2)).join('')}`);
}

export type VerdictKind = 'binding' | 'no_quorum' | 'deadlock';

export interface Verdict {
  kind: VerdictKind;
  /** The winning outcome (0 = void) when binding, else null. */
  outcome: number | null;
  /** Counted ballots per outcome, index = outcome (0..outcomeCount). */
  counts: number[];
}

/**
 * The verdict of the counted ballots (one per identity): fewer than `quorum` is no_quorum; otherwise the outcome with
 * the most ballots is binding, and a tie for the most is a deadlock. Both hand the market to the council.
 */
export function tally(ballots: readonly { outcome: number }[], rules: { quorum: number; outcomeCount: number }): Verdict {
  if (!Number.isInteger(rules.quorum) || rules.quorum < 1) throw new RangeError('quorum must be a positive integer');
  const counts = Array.from({ length: rules.outcomeCount + 1 }, () => 0);
  for (const b of ballots) {
    if (!Number.isInteger(b.outcome) || b.outcome < 0 || b.outcome > rules.outcomeCount) throw new RangeError(`ballot outcome ${b.outcome} is outside 0..${rules.outcomeCount}`);
    counts[b.outcome]! += 1;
  }
  if (ballots.length < rules.quorum) return { kind: 'no_quorum', outcome: null, counts };
  const top = Math.max(...counts);
  const leaders = counts.flatMap((c, outcome) => (c === top ? [outcome] : []));
  return leaders.length === 1 ? { kind: 'binding', outcome: leaders[0]!, counts } : { kind: 'deadlock', outcome: null, counts };
}

/** EIP-712 type of a creator's proposal relayed by the protocol (the resolver's proposeFor). */
export const PROPOSAL_TYPES = {
  Proposal: [
    { name: 'market', type: 'address' },
    { name: 'outcome', type: 'uint8' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

/** What a creator signs for a relayed proposal; `deadline` is the last second (unix) the relay may be mined. */
export function proposalTypedData(chainId: number, resolver: Address, proposal: { market: Address; outcome: number; deadline: bigint }) {
  return { domain: ballotDomain(chainId, resolver), types: PROPOSAL_TYPES, primaryType: 'Proposal' as const, message: proposal };
}

/** EIP-712 type of a council member's decision (the resolver's councilDecide takes the threshold of them). */
export const COUNCIL_DECISION_TYPES = {
  CouncilDecision: [
    { name: 'market', type: 'address' },
    { name: 'outcome', type: 'uint8' },
    { name: 'round', type: 'uint8' },
  ],
} as const;

/** What a council member signs: the outcome of a market whose vote `round` ended without a binding verdict. */
export function councilDecisionTypedData(chainId: number, resolver: Address, decision: { market: Address; outcome: number; round: number }) {
  return { domain: ballotDomain(chainId, resolver), types: COUNCIL_DECISION_TYPES, primaryType: 'CouncilDecision' as const, message: decision };
}
