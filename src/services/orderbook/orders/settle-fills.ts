/**
 * The settlement of one order's fills (docs/orderbook.md "The order loop"): every fill is one ledger match, written
 * with its fill row, the maker's order row, both owners' fill events, the owners' fill allowances and the market
 * record, all in the placement's transaction.
 */
import type { Transaction } from 'kysely';
import { MATCH_KIND_NAMES } from '../../../core/ledger/types.ts';
import type { Fill } from '../../../core/orderbook/types.ts';
import type { DB } from '../../../db/schema.ts';
import { applyFillsToMarket } from '../market-stats.ts';
// Leaderboards: each fill appends its maker's and taker's legs in this transaction (docs/leaderboard.md).
import { enqueueFillLegs } from '../../leaderboard/inbox.ts';
import { consumeFills } from './allowance.ts';
import { emit, type PendingEvent } from './order-events.ts';
import type { ViewFill } from './order-view.ts';
import { reservationOf } from './reservations.ts';
import type { OrderBookMarket } from './tradeable-market.ts';
import type { OrderBookDeps } from './types.ts';

type SettleDeps = Pick<OrderBookDeps, 'clock' | 'ledger' | 'chainId' | 'fills' | 'freeFillsOf'>;

/** Settles the taker's fills in order; answers them as its view shows them (none is in a batch yet). */
export async function settleFills(
  deps: SettleDeps,
  trx: Transaction<DB>,
  queue: PendingEvent[],
  { market, takerAgent, fills }: { market: OrderBookMarket; takerAgent: string; fills: readonly Fill[] },
): Promise<ViewFill[]> {
  // Every fill of the order is one ledger match, written together (one balance check, in order).
  const matches = fills.map((f) => ({ type: 'match' as const, match: { maker: f.maker, taker: f.taker, marketId: market.marketId, side: f.side, kind: f.kind, shares: f.shares, priceBps: f.priceBps, fee: f.takerFee } }));
  const { seqs } = matches.length > 0 ? await deps.ledger.submit(matches, { trx }) : { seqs: [] };
  const recorded: ViewFill[] = [];
  const perAgent = new Map<string, number>();
  for (const [i, fill] of fills.entries()) {
    const { row, makerAgent } = await recordFill(deps, trx, queue, market, fill, seqs[i]!, takerAgent);
    recorded.push(row);
    for (const a of [makerAgent, takerAgent]) perAgent.set(a, (perAgent.get(a) ?? 0) + 1);
  }
  await consumeFills(deps, trx, perAgent);
  await applyFillsToMarket(trx, { chainId: deps.chainId, address: market.address }, fills, deps.clock.now());
  await enqueueFillLegs(trx, deps.chainId, recorded.map((f) => String(f.id)));
  return recorded;
}

/** Records one fill whose ledger match was written as operation `ledgerSeq`. */
async function recordFill(deps: Pick<OrderBookDeps, 'clock'>, trx: Transaction<DB>, queue: PendingEvent[], market: OrderBookMarket, fill: Fill, ledgerSeq: string, takerAgent: string): Promise<{ row: ViewFill; makerAgent: string }> {
  const row = await trx
    .insertInto('order_fills')
    .values({
      market_id: market.marketId.toString(),
      market: market.address,
      maker_order: fill.makerOrderId,
      taker_order: fill.takerOrderId,
      maker: fill.maker,
      taker: fill.taker,
      side: fill.side,
      kind: fill.kind,
      price_bps: fill.priceBps,
      shares: fill.shares.toString(),
      taker_fee: fill.takerFee.toString(),
      ledger_seq: ledgerSeq,
      created_at: deps.clock.now(),
    })
    .returning(['id', 'maker_order', 'taker_order', 'kind', 'side', 'price_bps', 'shares', 'taker_fee', 'ledger_seq', 'created_at'])
    .executeTakeFirstOrThrow();
  const maker = await fillMaker(deps, trx, fill);
  const fillPayload = { fillId: String(row.id), kind: MATCH_KIND_NAMES[fill.kind], outcome: fill.side, priceBps: fill.priceBps, shares: fill.shares.toString(), ledgerSeq, final: false };
  emit(queue, maker.agentId, fill.makerOrderId, 'fill', { ...fillPayload, role: 'maker', fee: '0', remaining: maker.remaining.toString() }, String(row.id));
  emit(queue, takerAgent, fill.takerOrderId, 'fill', { ...fillPayload, role: 'taker', fee: fill.takerFee.toString() }, String(row.id));
  // Written with the fills: the ledger batch holding them cannot be committed before this transaction is.
  return { row: { ...row, batch_nonce: null, batch_status: null }, makerAgent: maker.agentId };
}

/** Takes the fill off the maker's order row (filled, remaining, what it still reserves); answers its owner and remainder. */
async function fillMaker(deps: Pick<OrderBookDeps, 'clock'>, trx: Transaction<DB>, fill: Fill): Promise<{ agentId: string; remaining: bigint }> {
  const maker = await trx.selectFrom('orders').select(['agent_id', 'action', 'price_bps', 'remaining', 'filled']).where('id', '=', fill.makerOrderId).executeTakeFirstOrThrow();
  const remaining = BigInt(maker.remaining) - fill.shares;
  await trx
    .updateTable('orders')
    .set({
      remaining: remaining.toString(),
      filled: (BigInt(maker.filled) + fill.shares).toString(),
      reserved: reservationOf(maker.action, maker.price_bps, remaining).toString(),
      status: remaining === 0n ? 'filled' : 'resting',
      updated_at: deps.clock.now(),
    })
    .where('id', '=', fill.makerOrderId)
    .execute();
  return { agentId: maker.agent_id, remaining };
}
