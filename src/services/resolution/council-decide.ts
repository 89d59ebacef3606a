/**
 * Sends the council's decision (councilDecide) once an outcome of the market's current round holds the council's
 * threshold of signatures: the signers in ascending order, as the resolver requires, the threshold of them. Called
 * when a signature completes the threshold and by the keeper, which retries a send a crash interrupted; the operation
 * id names the round and the outcome, so it is sent once (docs/resolution.md "Actions").
 */
import { abiWithAllErrors } from '../../chain/artifacts.ts';
import type { ActionDeps } from './deps.ts';
import { onChainRecord } from './on-chain-record.ts';
import { relayStep, type RelayedStep } from './relay-step.ts';

/** The outcome of the market's current council round with the threshold of signatures, and those signatures (ascending), or null. */
export async function councilQuorum(deps: Pick<ActionDeps, 'db' | 'chainId' | 'client' | 'resolver' | 'guard'>, market: string, round: number): Promise<{ outcome: number; signatures: { signer: string; signature: string }[] } | null> {
  const threshold = Number(await deps.guard(() => deps.client.readContract({ address: deps.resolver, abi: abiWithAllErrors('MarketResolver'), functionName: 'councilThreshold' })));
  const rows = await deps.db
    .selectFrom('council_signatures')
    .select(['signer', 'outcome', 'signature'])
    .where('chain_id', '=', deps.chainId)
    .where('market', '=', market)
    .where('round', '=', round)
    .orderBy('signer')
    .execute();
  const byOutcome = new Map<number, { signer: string; signature: string }[]>();
  for (const r of rows) byOutcome.set(r.outcome, [...(byOutcome.get(r.outcome) ?? []), { signer: r.signer, signature: r.signature }]);
  for (const [outcome, signatures] of byOutcome) if (threshold > 0 && signatures.length >= threshold) return { outcome, signatures: signatures.slice(0, threshold) };
  return null;
}

export async function decideByCouncil(deps: ActionDeps, market: string): Promise<RelayedStep | null> {
  const record = await onChainRecord(deps, market);
  if (record.phase !== 'council') return null;
  const quorum = await councilQuorum(deps, market, record.voteRound);
  if (!quorum) return null;
  const operationId = `resolution:${deps.chainId}:${market}:council:${record.voteRound}:${quorum.outcome}`;
  return relayStep(deps, operationId, 'councilDecide', [market, quorum.outcome, quorum.signatures], {
    BadSignature: { code: 'COUNCIL_SIGNATURE_INVALID', say: "a council signature is not its signer's" },
  });
}
