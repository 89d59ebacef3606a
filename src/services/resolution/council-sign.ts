/**
 * A council member's decision (POST /markets/{address}/resolution/council-signatures): the member's EIP-712
 * CouncilDecision(market, outcome, round) for a market in council review, checked against the resolver's council and
 * kept. The signature that gives an outcome the council's threshold announces market.councilReview {phase: decided}
 * in its own transaction, and the decision is sent at once (decideByCouncil); the resolver's CouncilDecided log then
 * announces {phase: executed} (docs/resolution.md "Actions").
 */
import type { Address } from 'viem';
import { abiWithAllErrors } from '../../chain/artifacts.ts';
import { problem } from '../../core/error-codes.ts';
import { councilDecisionTypedData } from '../../core/resolution/votes.ts';
import { canonicalSignature } from '../../core/signatures.ts';
import { markCouncilDecided } from './council-decided.ts';
import { decideByCouncil } from './council-decide.ts';
import { signedBy, type ActionDeps } from './deps.ts';
import { onChainRecord } from './on-chain-record.ts';
import type { RelayedStep } from './relay-step.ts';
import { resolvableMarket } from './resolvable-market.ts';
import { lockResolution } from './verdict.ts';

export interface CouncilSignInput {
  market: string;
  signer: string;
  outcome: number;
  signature: string;
  /** Over MCP, the wallet the call proved: it must be the signer. */
  provenWallet?: string | null;
}

export type CouncilSignError = 'MARKET_NOT_FOUND' | 'INVALID_PAYLOAD' | 'RESOLUTION_STEP_REFUSED' | 'NOT_COUNCIL_MEMBER' | 'COUNCIL_SIGNATURE_INVALID' | 'ALREADY_SIGNED' | 'FORBIDDEN';

export interface CouncilSignature {
  market: string;
  chainId: number;
  round: number;
  signer: string;
  outcome: number;
  signedAt: Date;
  /** Signatures the outcome holds in this round, and how many the council needs. */
  signatures: number;
  threshold: number;
  /** The councilDecide the threshold set off (null below it, or when sending it failed: the keeper retries). */
  decision: RelayedStep | null;
}

export async function signAsCouncil(deps: ActionDeps, input: CouncilSignInput): Promise<CouncilSignature> {
  if (input.provenWallet && input.provenWallet.toLowerCase() !== input.signer.toLowerCase()) throw problem('FORBIDDEN', 'the proven wallet is not the signer: prove the council member\'s wallet');
  const market = await resolvableMarket(deps, input.market);
  if (input.outcome > market.outcomeCount) throw problem('INVALID_PAYLOAD', `outcome must be 0 (void) or 1..${market.outcomeCount}`, { errors: [{ path: 'body.outcome', message: 'no such outcome' }] });
  const record = await onChainRecord(deps, market.address);
  if (record.phase !== 'council') throw problem('RESOLUTION_STEP_REFUSED', `market ${market.address} is not in council review (resolver phase: ${record.phase})`);
  const round = record.voteRound;
  const signer = input.signer.toLowerCase() as Address;
  const abi = abiWithAllErrors('MarketResolver');
  const [member, threshold] = await deps.guard(() =>
    Promise.all([
      deps.client.readContract({ address: deps.resolver, abi, functionName: 'isCouncilMember', args: [signer] }) as Promise<boolean>,
      deps.client.readContract({ address: deps.resolver, abi, functionName: 'councilThreshold' }).then(Number),
    ]),
  );
  if (!member) throw problem('NOT_COUNCIL_MEMBER', `${signer} is not a member of the resolver's council`);
  const typed = councilDecisionTypedData(deps.chainId, deps.resolver, { market: market.address as Address, outcome: input.outcome, round });
  // Kept in the form the resolver's check accepts (v 27/28, low s): a wallet's v 0/1 or high s would verify here and
  // revert councilDecide later, with the member unable to sign again.
  const signature = canonicalSignature(input.signature);
  const valid = await signedBy(deps, signer, { ...typed, signature } as never);
  if (!valid) throw problem('COUNCIL_SIGNATURE_INVALID', `signature is not ${signer}'s over CouncilDecision(market, outcome, round ${round}) under the resolver domain`);

  const signedAt = deps.clock.now();
  const kept = await deps.db.transaction().execute(async (trx) => {
    // Signatures of one market count one at a time: the one that reaches the threshold is exactly one.
    await lockResolution(trx, deps.chainId, market.address);
    const inserted = await trx
      .insertInto('council_signatures')
      .values({ chain_id: deps.chainId, market: market.address, round, signer, outcome: input.outcome, signature, signed_at: signedAt })
      .onConflict((oc) => oc.doNothing())
      .returning('signed_at')
      .executeTakeFirst();
    const mine = await trx.selectFrom('council_signatures').select(['outcome', 'signed_at']).where('chain_id', '=', deps.chainId).where('market', '=', market.address).where('round', '=', round).where('signer', '=', signer).executeTakeFirstOrThrow();
    if (mine.outcome !== input.outcome) throw problem('ALREADY_SIGNED', `${signer} signed outcome ${mine.outcome} in round ${round}; a member signs one outcome per round`);
    const { count } = await trx
      .selectFrom('council_signatures')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('chain_id', '=', deps.chainId)
      .where('market', '=', market.address)
      .where('round', '=', round)
      .where('outcome', '=', input.outcome)
      .executeTakeFirstOrThrow();
    const signatures = Number(count);
    // Announced once: by the signature that reaches the threshold, or by the CouncilDecided log if that comes first.
    if (inserted && signatures >= threshold) await markCouncilDecided(trx, deps, market.address, round);
    return { signatures, signedAt: mine.signed_at };
  });

  let decision: RelayedStep | null = null;
  if (kept.signatures >= threshold) {
    decision = await decideByCouncil(deps, market.address).catch((err: unknown) => {
      deps.log.warn({ err, market: market.address }, 'resolution: sending the council decision failed; the keeper retries it');
      return null;
    });
  }
  return { market: market.address, chainId: deps.chainId, round, signer, outcome: input.outcome, signedAt: kept.signedAt, signatures: kept.signatures, threshold, decision };
}
