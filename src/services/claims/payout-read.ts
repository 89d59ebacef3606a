/**
 * What a wallet is owed by automated markets, read from the chain at one pinned block (docs/money-out.md "Claims"):
 * the projection only says which markets to look at — those where the wallet holds shares and a resolution started,
 * or where it already redeemed — and every amount is the market's own answer at `chainReadAt`. A winning share pays
 * one collateral unit; for void every share pays 1/outcomeCount (the holder's total rounded down), as redeem() pays.
 */
import { parseAbi, type Address } from 'viem';
import { abiWithAllErrors } from '../../chain/artifacts.ts';
import { isProblemError } from '../../core/errors.ts';
import { resolutionRecordFromJson } from '../../core/resolution/record.ts';
import type { ClaimDeps } from './deps.ts';

const OUTCOME_TOKEN = parseAbi(['function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])']);
/** ILmsrMarket.MarketState.Resolved and .Proposed. */
const RESOLVED = 4;
const PROPOSED = 2;

export interface PayoutRead {
  market: string;
  collateralToken: string;
  collateralSymbol: string;
  isResolved: boolean;
  /** The market pays now (resolved on chain). */
  eligibleNow: boolean;
  /** When it pays: the resolution's time, or the end of an undisputed proposal's challenge window; null when unknown (a dispute runs). */
  eligibleAt: Date | null;
  /** The shares that pay: the winning outcome's (the proposed one while only proposed), or every outcome's for void. */
  winningShares: bigint;
  /** What redeem() would pay now (or would pay if the proposal stands). */
  amount: bigint;
  /** The wallet redeemed here before: the sum it was paid, from the chain's Redeemed logs (the projection). */
  redeemed: bigint;
}

/** The markets the wallet may be owed by (automated, registered, not cancelled), after `cursor`, by address. */
export async function payoutCandidates(deps: Pick<ClaimDeps, 'db' | 'chainId'>, wallet: string, p: { after?: string; limit: number; markets?: readonly string[] }) {
  let q = deps.db
    .selectFrom('markets as m')
    .select(['m.address', 'm.outcome_count', 'm.collateral_token', 'm.collateral_symbol'])
    .where('m.chain_id', '=', deps.chainId)
    .where('m.pricing_model', '=', 'automated')
    .where('m.cancel_reason', 'is', null)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('m.state', 'in', ['creator_proposal', 'challenge', 'human_voting', 'council_review', 'resolved', 'void']),
          eb.exists(eb.selectFrom('market_positions as p').select('p.market').whereRef('p.chain_id', '=', 'm.chain_id').whereRef('p.market', '=', 'm.address').where('p.holder', '=', wallet)),
        ]),
        eb.exists(eb.selectFrom('market_payouts as x').select('x.market').whereRef('x.chain_id', '=', 'm.chain_id').whereRef('x.market', '=', 'm.address').where('x.kind', '=', 'redeemed').where('x.recipient', '=', wallet)),
      ]),
    );
  if (p.markets) q = q.where('m.address', 'in', p.markets.length > 0 ? [...p.markets] : ['']);
  if (p.after) q = q.where('m.address', '>', p.after);
  return q.orderBy('m.address').limit(p.limit).execute();
}

export async function readPayouts(deps: ClaimDeps, wallet: string, markets: readonly { address: string; outcome_count: number; collateral_token: string; collateral_symbol: string }[]): Promise<{ reads: PayoutRead[]; chainReadAt: Date; blockNumber: bigint }> {
  const block = await deps.guard(() => deps.client.getBlock({ blockTag: 'latest' }));
  const at = { blockNumber: block.number };
  const abi = abiWithAllErrors('LmsrMarket');
  const redeemedRows = markets.length === 0 ? [] : await deps.db.selectFrom('market_payouts').select(['market', 'amount']).where('chain_id', '=', deps.chainId).where('kind', '=', 'redeemed').where('recipient', '=', wallet).where('market', 'in', markets.map((m) => m.address)).execute();
  const settled = await Promise.allSettled(
    markets.map(async (m): Promise<PayoutRead> => {
      const n = m.outcome_count;
      const ids = Array.from({ length: n }, (_, i) => (BigInt(m.address) << 8n) | BigInt(i));
      const [info, balances] = await deps.guard(() =>
        Promise.all([
          deps.client.readContract({ address: m.address as Address, abi, functionName: 'marketInfo', ...at }) as Promise<{ state: number; resolution: { proposedOutcome: number; proposedAt: bigint; challengeDeadline: bigint; finalOutcome: number } }>,
          deps.client.readContract({ address: deps.outcomeToken, abi: OUTCOME_TOKEN, functionName: 'balanceOfBatch', args: [ids.map(() => wallet as Address), ids], ...at }),
        ]),
      );
      const isResolved = info.state === RESOLVED;
      const proposedOnly = info.state === PROPOSED;
      const outcome = isResolved ? info.resolution.finalOutcome : proposedOnly ? info.resolution.proposedOutcome : null;
      const total = balances.reduce((a, b) => a + b, 0n);
      const winningShares = outcome === null ? 0n : outcome === 0 ? total : (balances[outcome - 1] ?? 0n);
      const amount = outcome === null ? 0n : outcome === 0 ? total / BigInt(n) : winningShares;
      const redeemed = redeemedRows.filter((r) => r.market === m.address).reduce((a, r) => a + BigInt(r.amount), 0n);
      return {
        market: m.address,
        collateralToken: m.collateral_token,
        collateralSymbol: m.collateral_symbol,
        isResolved,
        eligibleNow: isResolved,
        eligibleAt: isResolved ? await resolvedAt(deps, m.address) : proposedOnly ? new Date(Number(info.resolution.challengeDeadline) * 1000) : null,
        winningShares,
        amount,
        redeemed,
      };
    }),
  );
  // One market's failure is that market's: a node that cannot be reached is 503 for all; a market the chain cannot
  // answer for (no code, an old implementation) is left out (a batch reports it MARKET_NOT_FOUND).
  const reads: PayoutRead[] = [];
  for (const r of settled) {
    if (r.status === 'fulfilled') reads.push(r.value);
    else if (isProblemError(r.reason)) throw r.reason;
    else deps.log.warn({ err: r.reason }, 'claims: a market could not be read on chain; left out');
  }
  return { reads, chainReadAt: new Date(Number(block.timestamp) * 1000), blockNumber: block.number };
}

/** When the market resolved, from the projected resolver log (the record's update time until it is indexed). */
async function resolvedAt(deps: Pick<ClaimDeps, 'db' | 'chainId' | 'clock'>, market: string): Promise<Date> {
  const row = await deps.db.selectFrom('market_resolutions').select(['record', 'updated_at']).where('chain_id', '=', deps.chainId).where('market', '=', market).executeTakeFirst();
  return (row ? resolutionRecordFromJson(row.record).finalizedAt : null) ?? row?.updated_at ?? deps.clock.now();
}
