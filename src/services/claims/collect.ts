/**
 * POST /trade/creator-funds/collect (docs/money-out.md "Creator funds"): for the creator wallet's resolved markets
 * (the named ones, or every one, oldest first, COLLECT_PAGE at a time: hasMore), the protocol sends
 * collectCreatorFees and settleBond, paying the gas; the market pays only its creator, so the money is bound to the
 * creator wallet. Each step goes out once under a fixed operation id per market (`collect:<chain>:<market>:fees|bond`);
 * the plan is kept with the request's Idempotency-Key effect, so a retry answers the same transactions. Amounts are
 * the receipts' logs; a slashed bond is not the creator's (the keeper settles it).
 */
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, parseEventLogs, type Address, type Hex } from 'viem';
import { abiWithAllErrors, loadArtifact } from '../../chain/artifacts.ts';
import { isProblemError } from '../../core/errors.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { ClaimDeps } from './deps.ts';
import { sendOnce } from './send-once.ts';

/** Markets one call collects from; the rest answer hasMore. */
export const COLLECT_PAGE = 20;

interface CollectStep {
  send: boolean;
  skippedReason?: string;
  /** NOTHING_TO_COLLECT for fees already collected or never earned. */
  nothing?: boolean;
}

interface CollectPlanItem {
  chainId: number;
  marketAddress: string;
  fees: CollectStep;
  bond: CollectStep;
}

export interface Collection {
  chainId: number;
  marketAddress: string;
  marketBalance: { state: 'COLLECTED' | 'NOTHING_TO_COLLECT' | 'SKIPPED'; txHash: string | null; amount: string; skippedReason?: string };
  bond: { state: 'COLLECTED' | 'SKIPPED'; txHash: string | null; skippedReason?: string };
}

const RESOLVED = 4;

export async function collectCreatorFunds(deps: ClaimDeps, wallet: string, p: { chainId?: number; marketAddresses?: readonly string[] }, recordEffect?: EffectRecorder): Promise<{ walletAddress: string; collections: Collection[]; hasMore: boolean }> {
  const named = p.marketAddresses?.map((a) => a.toLowerCase());
  let q = deps.db.selectFrom('markets').select(['address', 'creator', 'pricing_model', 'cancel_reason', 'state']).where('chain_id', '=', deps.chainId);
  // Without names: the creator's resolved markets that still hold something of theirs (fees, or a bond neither
  // returned nor slashed), as the chain logged it; so each call moves on, and hasMore ends.
  q = named
    ? q.where('address', 'in', named.length > 0 ? named : [''])
    : q
        .where('creator', '=', wallet)
        .where('pricing_model', '=', 'automated')
        .where('cancel_reason', 'is', null)
        .where('state', 'in', ['resolved', 'void'])
        .where((eb) =>
          eb.or([
            eb('creator_fees', '>', '0'),
            eb.and([
              eb('bond', '>', '0'),
              eb.not(eb.exists(eb.selectFrom('market_payouts as x').select('x.market').whereRef('x.chain_id', '=', 'markets.chain_id').whereRef('x.market', '=', 'markets.address').where('x.kind', 'in', ['bond_returned', 'bond_slashed']))),
            ]),
          ]),
        );
  const rows = p.chainId !== undefined && p.chainId !== deps.chainId ? [] : await q.orderBy('created_at').orderBy('address').limit(COLLECT_PAGE + 1).execute();
  const page = rows.slice(0, COLLECT_PAGE);
  const missing = (named ?? []).filter((a) => !rows.some((r) => r.address === a)).map((a): CollectPlanItem => ({ chainId: deps.chainId, marketAddress: a, fees: { send: false, skippedReason: 'not_found: no market of ours at this address on this chain' }, bond: { send: false, skippedReason: 'not_found: no market of ours at this address on this chain' } }));
  const abi = abiWithAllErrors('LmsrMarket');
  const items = await Promise.all(
    page.map(async (m): Promise<CollectPlanItem> => {
      const skip = (reason: string): CollectPlanItem => ({ chainId: deps.chainId, marketAddress: m.address, fees: { send: false, skippedReason: reason }, bond: { send: false, skippedReason: reason } });
      if (m.creator.toLowerCase() !== wallet) return skip('not_creator: the money of a market goes to its creator only');
      if (m.pricing_model !== 'automated' || m.cancel_reason !== null) return skip('no_creator_funds: the market holds none (an order book, or a cancelled creation)');
      const read = (functionName: string) => deps.guard(() => deps.client.readContract({ address: m.address as Address, abi, functionName }));
      let onChain: [number, bigint, bigint, boolean];
      try {
        onChain = (await Promise.all([read('state'), read('creatorFees'), read('bond'), read('bondSettled')])) as [number, bigint, bigint, boolean];
      } catch (err) {
        if (isProblemError(err)) throw err;
        return skip('no_creator_funds: the market has no money-out functions on chain (created before this release, or gone)');
      }
      const [state, fees, bond, settled] = onChain;
      if (state !== RESOLVED) return skip('not_resolved: creator funds are collectable once the market resolves');
      const slashed = await creatorSlashed(deps, m.address as Address);
      return {
        chainId: deps.chainId,
        marketAddress: m.address,
        fees: fees > 0n ? { send: true } : { send: false, nothing: true },
        bond: settled ? { send: false, skippedReason: 'settled: the bond was returned or slashed already' } : bond === 0n ? { send: false, skippedReason: 'no_bond' } : slashed ? { send: false, skippedReason: 'slashed: the resolution went against the creator; the keeper settles it (5% keeper, 20% voters, 75% treasury)' } : { send: true },
      };
    }),
  );
  const id = `collect:${deps.chainId}:${wallet}:${randomUUID()}`;
  items.push(...missing);
  const summary = { walletAddress: wallet, hasMore: rows.length > COLLECT_PAGE };
  await deps.db.transaction().execute(async (trx) => {
    await trx.insertInto('claim_requests').values({ id, chain_id: deps.chainId, wallet, plan: JSON.stringify({ wallet, chainReadAt: deps.clock.now().toISOString(), items: [], collect: items, summary }), created_at: deps.clock.now() }).execute();
    await recordEffect?.(trx, id);
  });
  return { ...summary, collections: await settleCollection(deps, items) };
}

/** A kept collection (the replay of a keyed collect): the same transactions, sent if a crash stopped them. */
export async function replayCollection(deps: ClaimDeps, id: string): Promise<{ walletAddress: string; collections: Collection[]; hasMore: boolean }> {
  const row = await deps.db.selectFrom('claim_requests').select('plan').where('id', '=', id).executeTakeFirstOrThrow();
  const plan = row.plan as unknown as { collect: CollectPlanItem[]; summary: { walletAddress: string; hasMore: boolean } };
  return { ...plan.summary, collections: await settleCollection(deps, plan.collect) };
}

async function settleCollection(deps: ClaimDeps, items: readonly CollectPlanItem[]): Promise<Collection[]> {
  const abi = loadArtifact('LmsrMarket').abi;
  const out: Collection[] = [];
  for (const i of items) {
    const to = i.marketAddress as Address;
    const base = `collect:${deps.chainId}:${i.marketAddress}`;
    let marketBalance: Collection['marketBalance'];
    if (i.fees.send) {
      const sent = await sendOnce(deps, `${base}:fees`, to, encodeFunctionData({ abi, functionName: 'collectCreatorFees' }) as Hex);
      const log = sent.receipt ? parseEventLogs({ abi, logs: sent.receipt.logs, eventName: 'CreatorFeesCollected' })[0] : undefined;
      const amount = log ? (log.args as { amount: bigint }).amount : 0n;
      if (sent.tx === null) marketBalance = { state: 'SKIPPED', txHash: null, amount: '0', skippedReason: refusalReason(sent.refused) };
      else if (log && amount > 0n) marketBalance = { state: 'COLLECTED', txHash: sent.tx.txHash, amount: amount.toString() };
      // Collected by someone else between the plan and the send: nothing was left for this transaction.
      else if (log) marketBalance = { state: 'NOTHING_TO_COLLECT', txHash: sent.tx.txHash, amount: '0' };
      else marketBalance = { state: 'SKIPPED', txHash: sent.tx.txHash, amount: '0', skippedReason: `submit_failed: the transaction ended ${sent.tx.state}` };
    } else {
      marketBalance = i.fees.nothing ? { state: 'NOTHING_TO_COLLECT', txHash: null, amount: '0' } : { state: 'SKIPPED', txHash: null, amount: '0', skippedReason: i.fees.skippedReason };
    }
    let bond: Collection['bond'];
    if (i.bond.send) {
      const sent = await sendOnce(deps, `${base}:bond`, to, encodeFunctionData({ abi, functionName: 'settleBond' }) as Hex);
      const returned = sent.receipt ? parseEventLogs({ abi, logs: sent.receipt.logs, eventName: 'BondReturned' })[0] : undefined;
      if (sent.tx === null) bond = { state: 'SKIPPED', txHash: null, skippedReason: refusalReason(sent.refused) };
      else if (returned) bond = { state: 'COLLECTED', txHash: sent.tx.txHash };
      else bond = { state: 'SKIPPED', txHash: sent.tx.txHash, skippedReason: `submit_failed: the transaction ended ${sent.tx.state}` };
    } else {
      bond = { state: 'SKIPPED', txHash: null, skippedReason: i.bond.skippedReason };
    }
    out.push({ chainId: i.chainId, marketAddress: i.marketAddress, marketBalance, bond });
  }
  return out;
}

/** The skippedReason of a step the market refused when simulated. */
function refusalReason(errorName: string): string {
  if (errorName === 'BondAlreadySettled') return 'settled: the bond was returned or slashed already';
  if (errorName === 'NotResolved' || errorName === 'CreatorFeesLocked') return 'not_resolved: creator funds are collectable once the market resolves';
  return `refused: the market refused it (${errorName})`;
}

async function creatorSlashed(deps: ClaimDeps, market: Address): Promise<boolean> {
  const resolver = (await deps.guard(() => deps.client.readContract({ address: market, abi: abiWithAllErrors('LmsrMarket'), functionName: 'resolver' }))) as Address;
  const r = (await deps.guard(() => deps.client.readContract({ address: resolver, abi: abiWithAllErrors('MarketResolver'), functionName: 'resolutionOf', args: [market] }))) as { creatorSlashed: boolean };
  return r.creatorSlashed;
}
