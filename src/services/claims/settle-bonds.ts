/**
 * The keeper's money-out pass (docs/money-out.md "Bonds"): a resolved market whose creator the resolver slashed has
 * its bond settled (settleBond: 5% to the operator as keeper, 20% kept for the binding vote's voters, the rest to the
 * treasury), and the voters' part paid to the ballots of the final outcome (distributeVoterRewards, given the round's
 * counted ballots, which the market checks against the resolver's commitment). A bond that is the creator's to take
 * back waits for the creator's collect. Each step once, under `bond:<chain>:<market>:settle|voters`.
 */
import { encodeFunctionData, keccak256, type Address, type Hex } from 'viem';
import { abiWithAllErrors, loadArtifact } from '../../chain/artifacts.ts';
import { resolutionRecordFromJson } from '../../core/resolution/record.ts';
import { ballotLeaf } from '../../core/resolution/votes.ts';
import type { ClaimDeps } from './deps.ts';
import { sendOnce } from './send-once.ts';

export async function settleSlashedBonds(deps: ClaimDeps): Promise<string[]> {
  const done: string[] = [];
  const rows = await deps.db
    .selectFrom('market_resolutions as r')
    .innerJoin('markets as m', (j) => j.onRef('m.chain_id', '=', 'r.chain_id').onRef('m.address', '=', 'r.market'))
    .select(['r.market', 'r.record', 'r.vote_round'])
    .where('r.chain_id', '=', deps.chainId)
    .where('r.phase', '=', 'resolved')
    .where('m.pricing_model', '=', 'automated')
    .where('m.bond', '>', '0')
    // Done: returned, voters paid, or slashed with no voters' part.
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('market_payouts as v')
            .select('v.market')
            .whereRef('v.chain_id', '=', 'r.chain_id')
            .whereRef('v.market', '=', 'r.market')
            .where((v) => v.or([v('v.kind', 'in', ['bond_returned', 'voter_rewards']), v.and([v('v.kind', '=', 'bond_slashed'), v('v.shares', '=', '0')])])),
        ),
      ),
    )
    .execute();
  for (const r of rows) {
    try {
      done.push(...(await settleOne(deps, r)));
    } catch (err) {
      deps.log.warn({ err, market: r.market }, 'payout keeper: settling the bond failed; retrying on the next pass');
    }
  }
  return done;
}

async function settleOne(deps: ClaimDeps, r: { market: string; record: Record<string, unknown>; vote_round: number }): Promise<string[]> {
  const done: string[] = [];
  const abi = loadArtifact('LmsrMarket').abi;
  {
    const record = resolutionRecordFromJson(r.record);
    if (!record.creatorSlashed) return done;
    const market = r.market as Address;
    const base = `bond:${deps.chainId}:${r.market}`;
    const read = (functionName: string) => deps.guard(() => deps.client.readContract({ address: market, abi: abiWithAllErrors('LmsrMarket'), functionName }));
    if (!(await read('bondSettled'))) {
      const sent = await sendOnce(deps, `${base}:settle`, market, encodeFunctionData({ abi, functionName: 'settleBond' }) as Hex);
      if (sent.tx?.state === 'confirmed') done.push(`settleBond ${r.market}`);
    }
    if (((await read('voterPool')) as bigint) === 0n) return done;
    const ballots = await deps.db.selectFrom('vote_ballots').select(['wallet_address', 'outcome', 'signature']).where('chain_id', '=', deps.chainId).where('market', '=', r.market).where('round', '=', r.vote_round).execute();
    const counted = ballots
      .map((b) => ({ wallet: b.wallet_address, outcome: b.outcome, signature: b.signature as Hex }))
      .sort((a, b) => (ballotLeaf(a) < ballotLeaf(b) ? -1 : 1))
      .map((b) => ({ wallet: b.wallet as Address, outcome: b.outcome, signatureHash: keccak256(b.signature) }));
    const sent = await sendOnce(deps, `${base}:voters`, market, encodeFunctionData({ abi, functionName: 'distributeVoterRewards', args: [counted] }) as Hex);
    if (sent.refused) deps.log.warn({ market: r.market, refused: sent.refused }, 'payout keeper: the market refuses the voters\' distribution');
    if (sent.tx?.state === 'confirmed') done.push(`distributeVoterRewards ${r.market}`);
  }
  return done;
}
