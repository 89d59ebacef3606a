/**
 * Claims the protocol sends and pays gas for (docs/money-out.md "Claims"): a plan per market — send, or skip with the
 * spec's reason — made from chain reads, kept with the request's effect (`claim_requests`, one transaction with the
 * Idempotency-Key record), then one PayoutRouter.redeemMany transaction under the plan's id as relayer operation. A
 * retry, or a restart between submit and receipt, finds the same operation: a claim is never paid twice (the market
 * burns what it pays) and never lost. Amounts settled are the receipt's Redeemed logs.
 */
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, parseEventLogs, type Address, type Hex } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { ClaimDeps } from './deps.ts';
import type { PayoutFields } from './payout-items.ts';
import type { PayoutRead } from './payout-read.ts';

export type SkippedReason = 'NOT_CLAIMABLE_YET' | 'MARKET_NOT_FOUND' | 'ROUTER_UNAVAILABLE' | 'SUBMIT_FAILED';

export interface ClaimSettlement extends PayoutFields {
  state: 'SETTLED' | 'SKIPPED';
  txHash?: string;
  skippedReason?: SkippedReason;
}

/** One market of a plan, as JSON (it is kept in claim_requests.plan). */
interface PlannedClaim {
  chainId: number;
  marketAddress: string;
  send: boolean;
  skippedReason?: SkippedReason;
  amount: string;
  winningShares: string;
  eligibleNow: boolean;
  eligibleAt: string | null;
  isResolved: boolean;
  claimed: boolean;
}

export interface ClaimPlan {
  wallet: string;
  chainReadAt: string;
  items: PlannedClaim[];
  /** The rest of the answer (counts and totals of the reads), kept so a replay answers the same. */
  summary?: Record<string, unknown>;
}

/** A market the plan skips before reading it (unknown, another chain, an order book). */
export const skipped = (chainId: number, marketAddress: string, reason: SkippedReason): PlannedClaim => ({
  chainId,
  marketAddress,
  send: false,
  skippedReason: reason,
  amount: '0',
  winningShares: '0',
  eligibleNow: false,
  eligibleAt: null,
  isResolved: false,
  claimed: false,
});

/** A market read on chain: sent when it pays now; otherwise skipped as not claimable (yet, or any more). */
export function planned(chainId: number, r: PayoutRead): PlannedClaim {
  const send = r.eligibleNow && r.amount > 0n;
  return {
    chainId,
    marketAddress: r.market,
    send,
    ...(send ? {} : { skippedReason: 'NOT_CLAIMABLE_YET' as const }),
    amount: r.amount.toString(),
    winningShares: r.winningShares.toString(),
    eligibleNow: r.eligibleNow,
    eligibleAt: r.eligibleAt?.toISOString() ?? null,
    isResolved: r.isResolved,
    claimed: r.amount === 0n && r.redeemed > 0n,
  };
}

/**
 * Keeps the plan with the request's effect and sends it; returns one settlement per planned market. A plan with
 * nothing to send is answered as it stands (nothing is kept: repeating it changes nothing).
 */
export async function executePlan(deps: ClaimDeps, plan: ClaimPlan, recordEffect?: EffectRecorder): Promise<{ id: string | null; settlements: ClaimSettlement[] }> {
  if (!plan.items.some((i) => i.send)) return { id: null, settlements: plan.items.map((i) => settlementOf(i, plan.chainReadAt)) };
  const id = `claims:${deps.chainId}:${plan.wallet}:${randomUUID()}`;
  await deps.db.transaction().execute(async (trx) => {
    await trx.insertInto('claim_requests').values({ id, chain_id: deps.chainId, wallet: plan.wallet, plan: JSON.stringify(plan), created_at: deps.clock.now() }).execute();
    await recordEffect?.(trx, id);
  });
  return { id, settlements: await settleRequest(deps, id) };
}

/** A kept plan: its summary and its settlements (sending it if a crash stopped it before). */
export async function replayRequest(deps: ClaimDeps, id: string): Promise<{ summary: Record<string, unknown>; settlements: ClaimSettlement[] }> {
  const row = await deps.db.selectFrom('claim_requests').select(['plan']).where('id', '=', id).executeTakeFirstOrThrow();
  const plan = row.plan as unknown as ClaimPlan;
  return { summary: plan.summary ?? {}, settlements: await settleRequest(deps, id) };
}

/** Sends a kept plan (once: the relayer operation is the plan's id) and settles it from the receipt. */
export async function settleRequest(deps: ClaimDeps, id: string): Promise<ClaimSettlement[]> {
  const row = await deps.db.selectFrom('claim_requests').select(['plan']).where('id', '=', id).executeTakeFirstOrThrow();
  const plan = row.plan as unknown as ClaimPlan;
  const sends = plan.items.filter((i) => i.send);
  const data = encodeFunctionData({
    abi: loadArtifact('PayoutRouter').abi,
    functionName: 'redeemMany',
    args: [sends.map((i) => ({ market: i.marketAddress as Address, holder: plan.wallet as Address }))],
  } as never) as Hex;
  const tx = await deps.guard(() => deps.relayer.send({ operationId: id, idempotencyKey: id, to: deps.payoutRouter, data }));
  if (tx.state !== 'confirmed') {
    deps.log.warn({ id, txHash: tx.txHash, state: tx.state }, 'claims: the redemption transaction did not settle');
    return plan.items.map((i) => (i.send ? { ...settlementOf(i, plan.chainReadAt), state: 'SKIPPED', skippedReason: 'SUBMIT_FAILED', txHash: tx.txHash } : settlementOf(i, plan.chainReadAt)));
  }
  const receipt = await deps.guard(() => deps.client.getTransactionReceipt({ hash: tx.txHash as Hex }));
  const block = await deps.guard(() => deps.client.getBlock({ blockNumber: receipt.blockNumber }));
  const settledAt = new Date(Number(block.timestamp) * 1000).toISOString();
  const paid = new Map<string, bigint>();
  for (const l of parseEventLogs({ abi: loadArtifact('LmsrMarket').abi, logs: receipt.logs, eventName: 'Redeemed' })) {
    const args = l.args as { holder: string; payout: bigint };
    if (args.holder.toLowerCase() === plan.wallet) paid.set(l.address.toLowerCase(), (paid.get(l.address.toLowerCase()) ?? 0n) + args.payout);
  }
  return plan.items.map((i): ClaimSettlement => {
    if (!i.send) return settlementOf(i, plan.chainReadAt);
    const amount = paid.get(i.marketAddress);
    // A claim the router reported as skipped (ClaimSkipped) has no Redeemed log.
    if (amount === undefined) return { ...settlementOf(i, plan.chainReadAt), state: 'SKIPPED', skippedReason: 'SUBMIT_FAILED', txHash: tx.txHash };
    // A concurrent claim redeemed it first: nothing was left for this transaction.
    if (amount === 0n) return { ...settlementOf(i, settledAt), state: 'SKIPPED', skippedReason: 'NOT_CLAIMABLE_YET', amount: '0', claimed: true };
    return { ...settlementOf(i, settledAt), state: 'SETTLED', amount: amount.toString(), txHash: tx.txHash, claimed: true };
  });
}

function settlementOf(i: PlannedClaim, chainReadAt: string): ClaimSettlement {
  return {
    state: 'SKIPPED',
    chainId: i.chainId,
    marketAddress: i.marketAddress,
    amount: i.amount,
    ...(i.skippedReason ? { skippedReason: i.skippedReason } : {}),
    eligibleNow: i.eligibleNow,
    eligibleAt: i.eligibleAt,
    amountSource: 'chain',
    winningShares: i.winningShares,
    isResolved: i.isResolved,
    claimed: i.claimed,
    chainReadAt,
  };
}
