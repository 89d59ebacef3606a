/**
 * Recounts a market's votes from public data only (svc resolution verify; docs/resolution.md "Votes"): the verdicts
 * the resolver recorded on chain (VoteClosed logs of the market's own resolver) and the published sessions (GET
 * /resolution/votes/{sessionId}). Every ballot's signature must recover to its wallet, one ballot may count per
 * wallet and per identity, and the commitment, the count and the verdict recomputed from them must equal the chain's.
 */
import { parseAbi, parseAbiItem, recoverTypedDataAddress, type Address, type Hex, type PublicClient } from 'viem';
import { ballotsRoot, ballotTypedData, tally } from '../../core/resolution/votes.ts';
import { VERDICT_KINDS } from '../../core/resolution/record.ts';

const MARKET_ABI = parseAbi(['function resolver() view returns (address)', 'function outcomeCount() view returns (uint8)']);
const VOTE_CLOSED = parseAbiItem('event VoteClosed(address indexed market, uint8 round, uint8 kind, uint8 outcome, bytes32 ballotRoot, uint32 ballotCount)');

/** A published session, as GET /resolution/votes/{sessionId} answers it. */
export interface PublishedSession {
  quorum: number;
  ballots: { wallet: string; identityKey: string; outcome: number; signature: string }[];
}

export interface RecountReport {
  ok: boolean;
  resolver: Address;
  rounds: { round: number; chain: string; recount: string; ok: boolean; problems: string[] }[];
}

export async function recountVotes(deps: { client: PublicClient; chainId: number; fetchSession: (sessionId: string) => Promise<PublishedSession> }, market: Address, fromBlock = 0n): Promise<RecountReport> {
  const { client, chainId } = deps;
  const resolver = await client.readContract({ address: market, abi: MARKET_ABI, functionName: 'resolver' });
  const outcomeCount = await client.readContract({ address: market, abi: MARKET_ABI, functionName: 'outcomeCount' });
  const logs = await client.getLogs({ address: resolver, event: VOTE_CLOSED, args: { market }, fromBlock, toBlock: 'latest', strict: true });
  const rounds: RecountReport['rounds'] = [];
  for (const log of logs) {
    const { round, kind, outcome, ballotRoot, ballotCount } = log.args;
    const session = await deps.fetchSession(`${chainId}:${market.toLowerCase()}:${round}`);
    const problems: string[] = [];
    const wallets = new Set<string>();
    const identities = new Set<string>();
    for (const b of session.ballots) {
      const typed = ballotTypedData(chainId, resolver, { market, round, outcome: b.outcome });
      const signer = await recoverTypedDataAddress({ ...typed, signature: b.signature as Hex }).catch(() => null);
      if (signer?.toLowerCase() !== b.wallet.toLowerCase()) problems.push(`the ballot of ${b.wallet} is not signed by it for outcome ${b.outcome}`);
      if (wallets.has(b.wallet.toLowerCase())) problems.push(`${b.wallet} voted twice`);
      if (identities.has(b.identityKey)) problems.push(`identity ${b.identityKey} voted twice`);
      wallets.add(b.wallet.toLowerCase());
      identities.add(b.identityKey);
    }
    const counted = session.ballots.map((b) => ({ wallet: b.wallet.toLowerCase(), outcome: b.outcome, signature: b.signature as Hex }));
    const verdict = tally(counted, { quorum: session.quorum, outcomeCount });
    const root = ballotsRoot(counted);
    const chainKind = VERDICT_KINDS[kind] ?? `kind ${kind}`;
    if (root.toLowerCase() !== ballotRoot.toLowerCase()) problems.push(`ballot commitment ${root} differs from the chain's ${ballotRoot}`);
    if (counted.length !== ballotCount) problems.push(`${counted.length} published ballots, the chain counted ${ballotCount}`);
    if (verdict.kind !== chainKind) problems.push(`the ballots give ${verdict.kind}, the chain recorded ${chainKind}`);
    else if (verdict.kind === 'binding' && verdict.outcome !== outcome) problems.push(`the ballots elect outcome ${verdict.outcome}, the chain recorded ${outcome}`);
    rounds.push({
      round,
      chain: `${chainKind}${chainKind === 'binding' ? ` ${outcome}` : ''}, ${ballotCount} ballots, root ${ballotRoot}`,
      recount: `${verdict.kind}${verdict.kind === 'binding' ? ` ${verdict.outcome}` : ''}, ${counted.length} ballots, root ${root}`,
      ok: problems.length === 0,
      problems,
    });
  }
  return { ok: rounds.every((r) => r.ok), resolver, rounds };
}
