/**
 * Publishing a frame onto a market's surface (POST /market-data/frames; docs/market-data.md): the frame must fit its
 * market (frameMismatch) and the market must still take frames; then the per-market frame limit and the aggregate
 * data budget are charged (both separate from the write budget), and the frame, its market.frame event and the
 * Idempotency-Key effect commit in one transaction.
 */
import { problem } from '../../core/error-codes.ts';
import { frameId, frameMismatch, FRAMES_CLOSED_STATES, type FrameInput } from '../../core/markets/frames.ts';
import type { Controls } from '../../core/markets/states.ts';
import type { AgentTier } from '../../core/tiers.ts';
import { appendEvent } from '../events/outbox.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { findMarket } from '../markets/reads/find-market.ts';
import { chargeBudget } from '../rate-limit/charge.ts';
import { RATE_WINDOW_MS } from '../rate-limit/limits.ts';
import { frameView, type FrameView, type MarketDataDeps } from './deps.ts';

export interface PublishFrameInput {
  market: string;
  chainId?: number;
  frame: FrameInput;
}

export interface PublishedFrame {
  frame: FrameView;
  /** RateLimit-* of the budget closer to running out (the market's frames or the aggregate). */
  headers: Record<string, string>;
}

export async function publishFrame(
  deps: MarketDataDeps,
  caller: { agentId: string | null; tier: AgentTier },
  input: PublishFrameInput,
  recordEffect?: EffectRecorder,
): Promise<PublishedFrame> {
  const agentId = caller.agentId;
  if (agentId === null) throw problem('FORBIDDEN', 'frames are published by an agent and this API key belongs to none (an operator key); use an agent key');
  const market = await findMarket(deps.db, { address: input.market, chainId: input.chainId });
  // The generated column: registered metadata and a listed, active market (isListed of its controls).
  if (market.listed !== true) {
    throw problem('MARKET_SURFACE_CLOSED', `market ${market.address} is not listed: its surface takes no frames`);
  }
  if ((market.controls as unknown as Controls).mutation === 'locked') {
    throw problem('MARKET_SURFACE_CLOSED', `market ${market.address} is locked by the operator (mutation locked): its surface takes no frames`);
  }
  if (FRAMES_CLOSED_STATES.includes(market.state)) {
    throw problem('MARKET_SURFACE_CLOSED', `market ${market.address} is ${market.state}: its surface takes no more frames`);
  }
  const mismatch = frameMismatch(input.frame, market.outcome_count);
  if (mismatch !== null) throw problem('INVALID_PAYLOAD', mismatch);

  const headers = await chargeDataBudgets(deps, agentId, caller.tier, `${market.chain_id}:${market.address}`);
  const agent = await deps.db.selectFrom('agents').select(['name', 'wallet_address']).where('id', '=', agentId).executeTakeFirstOrThrow();
  const row = await deps.db.transaction().execute(async (trx) => {
    // The frame first, the outbox counter last (docs/events.md lock order); the event then names the frame.
    const inserted = await trx
      .insertInto('market_frames')
      .values({
        chain_id: market.chain_id,
        market: market.address,
        agent_id: agentId,
        publisher_wallet: agent.wallet_address,
        kind: input.frame.kind,
        data: JSON.stringify(input.frame.data),
        created_at: deps.clock.now(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const id = frameId(inserted.id);
    const event = await appendEvent(trx, deps.clock, {
      type: 'market.frame',
      chainId: market.chain_id,
      marketAddress: market.address,
      payload: {
        frameId: id,
        kind: input.frame.kind,
        frame: input.frame.data,
        publisher: { agentId, name: agent.name, walletAddress: agent.wallet_address },
      },
    });
    const row = await trx
      .updateTable('market_frames')
      .set({ event_seq: event.seq })
      .where('id', '=', inserted.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordEffect?.(trx, id);
    return row;
  });
  return { frame: frameView({ ...row, agent_name: agent.name }), headers };
}

/**
 * Charges the market's frame limit, then the aggregate backstop. A refusal is 429 RATE_LIMITED naming the budget; a
 * frame refused by the aggregate has still used one of its market's (the stores charge and check in one step).
 */
async function chargeDataBudgets(deps: MarketDataDeps, agentId: string, tier: AgentTier, market: string): Promise<Record<string, string>> {
  const limits = deps.limits[tier];
  const charge = (bucket: string, limit: number, what: string) =>
    chargeBudget(deps, {
      bucket,
      limit,
      windowMs: RATE_WINDOW_MS,
      spent: (retryAfter) => `${what} of ${limit} frames per 60 s is spent; retry after ${retryAfter} s`,
      extensions: { budget: what === 'the per-market frame limit' ? 'frames-per-market' : 'data' },
    });
  const perMarket = await charge(`agent:${agentId}:frames:${market}`, limits.framesPerMarketPerMinute, 'the per-market frame limit');
  const aggregate = await charge(`agent:${agentId}:data`, limits.dataPerMinute, 'the data budget');
  return Number(aggregate['RateLimit-Remaining']) < Number(perMarket['RateLimit-Remaining']) ? aggregate : perMarket;
}
