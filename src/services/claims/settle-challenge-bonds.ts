/**
 * The payout keeper's challenge bonds (docs/money-out.md "Bonds"): a resolved market that was challenged has its
 * challenge bond paid out by the resolver (settleChallengeBond): back to the challenger when the final outcome is not
 * the proposed one, else to the creator. Both lanes. Once per market (`bond:<chain>:<market>:challenge`); done when
 * the chain's ChallengeBondSettled is projected (market_payouts, kind challenge_bond).
 */
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { sql } from 'kysely';
import { loadArtifact } from '../../chain/artifacts.ts';
import type { ClaimDeps } from './deps.ts';
import { sendOnce } from './send-once.ts';

export async function settleChallengeBonds(deps: ClaimDeps): Promise<string[]> {
  const due = await deps.db
    .selectFrom('market_resolutions as r')
    .select('r.market')
    .where('r.chain_id', '=', deps.chainId)
    .where('r.phase', '=', 'resolved')
    .where(sql<boolean>`r.record->>'challenger' IS NOT NULL`)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('market_payouts as v').select('v.market').whereRef('v.chain_id', '=', 'r.chain_id').whereRef('v.market', '=', 'r.market').where('v.kind', '=', 'challenge_bond'))))
    .orderBy('r.market')
    .limit(20)
    .execute();
  const done: string[] = [];
  for (const { market } of due) {
    try {
      const data = encodeFunctionData({ abi: loadArtifact('MarketResolver').abi, functionName: 'settleChallengeBond', args: [market as Address] }) as Hex;
      const sent = await sendOnce(deps, `bond:${deps.chainId}:${market}:challenge`, deps.resolver, data);
      if (sent.tx?.state === 'confirmed') done.push(`settleChallengeBond ${market}`);
    } catch (err) {
      deps.log.warn({ err, market }, 'payout keeper: settling the challenge bond failed; retrying on the next pass');
    }
  }
  return done;
}
