// Applies one batch's logs to the projection (projection/, one file per kind of log, and register-market.ts), inside
// the batch's transaction.
import type { Transaction } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { appendEvents } from '../../events/outbox.ts';
import { applyCreatorFeesCollected } from '../projection/apply-creator-fees.ts';
import { applyPayout, type PayoutLog } from '../projection/apply-payout.ts';
import { applyTrade, type TradeLog } from '../projection/apply-trade.ts';
import { applyTransfer, type TransferLog } from '../projection/apply-transfer.ts';
import { registerMarket } from '../register-market.ts';
import type { IndexerDeps } from './deps.ts';
import { decodeOutcomeId, type LaneLog, type LaneLogOf } from './lane-events.ts';
import type { BlockRange } from './read-range.ts';
import { applyResolutionLogs } from './resolutions.ts';
import type { EndedMarket } from '../ended-markets.ts';

type ApplyDeps = Pick<IndexerDeps, 'chainId' | 'clock' | 'lane' | 'onMarketsStopped'>;

/**
 * Order-book creations first, then the lane's logs in order, then the resolver's. Returns how many markets were
 * registered for the first time, and the open markets a resolution step stopped.
 */
export async function applyRange(trx: Transaction<DB>, deps: ApplyDeps, range: BlockRange): Promise<{ inserted: number; stopped: EndedMarket[] }> {
  let inserted = 0;
  for (const c of range.orderBookCreations) {
    if ((await registerMarket(trx, deps.clock, c, { confirmed: true })).inserted) inserted++;
  }
  const trades: TradeLog[] = [];
  for (const l of range.logs) {
    if (await applyLog(trx, deps, range, l, trades)) inserted++;
  }
  // A public market.trade per newly recorded trade (pages re-read prices and trades on it), appended at once.
  if (trades.length > 0) await appendEvents(trx, deps.clock, trades.map(tradeEventOf));
  const stopped = await applyResolutionLogs(trx, deps, range.resolutions);
  for (const l of range.challengeBonds) {
    const market = l.args.market.toLowerCase();
    const known = await trx.selectFrom('markets').select('address').where('chain_id', '=', deps.chainId).where('address', '=', market).executeTakeFirst();
    if (!known) continue;
    const at = { chainId: deps.chainId, txHash: l.transactionHash, logIndex: l.logIndex, blockNumber: l.blockNumber, blockTime: range.blocks.get(l.blockNumber)!.time, market };
    await applyPayout(trx, { ...at, kind: 'challenge_bond', recipient: l.args.to, amount: l.args.amount, shares: null });
  }
  return { inserted, stopped };
}

/** True when the log registered a market for the first time. Trades and fee collections of unknown markets are skipped. */
async function applyLog(trx: Transaction<DB>, deps: ApplyDeps, range: BlockRange, l: LaneLog, trades: TradeLog[]): Promise<boolean> {
  const market = l.address.toLowerCase();
  if (l.eventName === 'MarketCreated') {
    const c = range.automatedCreations.find((m) => m.txHash === l.transactionHash && m.address.toLowerCase() === l.args.market.toLowerCase());
    return c !== undefined && (await registerMarket(trx, deps.clock, c, { confirmed: true })).inserted;
  }
  if (l.eventName === 'Trade' && range.known.has(market)) {
    const trade = tradeLogOf(deps.chainId, l, range.blocks.get(l.blockNumber)!.time);
    if (await applyTrade(trx, deps.clock, trade)) trades.push(trade);
  } else if (l.eventName === 'CreatorFeesCollected' && range.known.has(market)) {
    await applyCreatorFeesCollected(trx, deps.clock, { chainId: deps.chainId, market, amount: l.args.amount });
    await applyPayout(trx, payoutOf(deps.chainId, l, range.blocks.get(l.blockNumber)!.time, 'creator_fees', l.args.creator, l.args.amount));
  } else if (PAYOUT_EVENTS.has(l.eventName) && range.known.has(market)) {
    await applyPayout(trx, payoutLogOf(deps.chainId, l as PayoutLaneLog, range.blocks.get(l.blockNumber)!.time));
  } else if ((l.eventName === 'TransferSingle' || l.eventName === 'TransferBatch') && market === deps.lane.outcomeToken) {
    for (const t of transferLogsOf(deps.chainId, l)) await applyTransfer(trx, t);
  }
  return false;
}

/** The market.trade event of a trade (docs/events.md): amounts as decimal strings of base units. */
function tradeEventOf(t: TradeLog) {
  return {
    type: 'market.trade',
    chainId: t.chainId,
    marketAddress: t.market.toLowerCase(),
    payload: { kind: 'lmsr', txHash: t.txHash, logIndex: t.logIndex, trader: t.trader.toLowerCase(), outcome: t.outcome, side: t.isBuy ? 'buy' : 'sell', shares: t.shares.toString(), cost: t.cost.toString(), pricesAfter: t.pricesAfter.map(String) },
  };
}

type PayoutLaneLog = LaneLogOf<'Redeemed' | 'BondReturned' | 'BondSlashed' | 'VoterRewardsPaid' | 'ResidualSwept'>;
const PAYOUT_EVENTS = new Set<string>(['Redeemed', 'BondReturned', 'BondSlashed', 'VoterRewardsPaid', 'ResidualSwept']);

function payoutOf(chainId: number, l: LaneLog, blockTime: Date, kind: PayoutLog['kind'], recipient: string | null, amount: bigint, shares: bigint | null = null): PayoutLog {
  return { chainId, txHash: l.transactionHash, logIndex: l.logIndex, blockNumber: l.blockNumber, blockTime, market: l.address.toLowerCase(), kind, recipient, amount, shares };
}

function payoutLogOf(chainId: number, l: PayoutLaneLog, blockTime: Date): PayoutLog {
  switch (l.eventName) {
    case 'Redeemed':
      return payoutOf(chainId, l, blockTime, 'redeemed', l.args.holder, l.args.payout, l.args.shares);
    case 'BondReturned':
      return payoutOf(chainId, l, blockTime, 'bond_returned', l.args.creator, l.args.amount);
    case 'BondSlashed':
      return payoutOf(chainId, l, blockTime, 'bond_slashed', l.args.keeper, l.args.keeperCut, l.args.voterPool);
    case 'VoterRewardsPaid':
      return payoutOf(chainId, l, blockTime, 'voter_rewards', null, l.args.perVoter, l.args.winners);
    case 'ResidualSwept':
      return payoutOf(chainId, l, blockTime, 'residual_swept', l.args.creator, l.args.amount);
  }
}

function tradeLogOf(chainId: number, l: LaneLogOf<'Trade'>, blockTime: Date): TradeLog {
  const a = l.args;
  return {
    chainId,
    txHash: l.transactionHash,
    logIndex: l.logIndex,
    blockNumber: l.blockNumber,
    blockHash: l.blockHash,
    blockTime,
    market: l.address.toLowerCase(),
    trader: a.trader,
    recipient: a.recipient,
    outcome: a.outcome,
    isBuy: a.isBuy,
    shares: a.shares,
    cost: a.cost,
    protocolFee: a.protocolFee,
    creatorFee: a.creatorFee,
    pricesAfter: a.pricesAfter,
  };
}

/** One TransferLog per id of a TransferSingle or TransferBatch of the outcome token. */
function transferLogsOf(chainId: number, l: LaneLogOf<'TransferSingle' | 'TransferBatch'>): TransferLog[] {
  const ids = l.eventName === 'TransferSingle' ? [l.args.id] : l.args.ids;
  const values = l.eventName === 'TransferSingle' ? [l.args.value] : l.args.values;
  return ids.map((id, i) => {
    const { market, outcome } = decodeOutcomeId(id);
    return { chainId, txHash: l.transactionHash, logIndex: l.logIndex, batchIndex: i, blockNumber: l.blockNumber, market, outcome, from: l.args.from, to: l.args.to, amount: values[i]! };
  });
}
