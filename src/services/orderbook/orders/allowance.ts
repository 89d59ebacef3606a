/**
 * The fill allowance as the order loop meets it (docs/orderbook.md "Fill allowance"): a new order needs a fill
 * left, and every fill counts once for each of its two owners, free fills of the month first.
 */
import { sql, type Transaction } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import { fillMonth } from '../../../core/fill-allowance.ts';
import type { DB } from '../../../db/schema.ts';
import type { OrderBookDeps, OrderLoopError } from './types.ts';

type AllowanceDeps = Pick<OrderBookDeps, 'clock' | 'fills' | 'freeFillsOf'>;

/** No fills remain this month (402). */
export type FillAllowanceError = OrderLoopError<'FILL_ALLOWANCE_EXHAUSTED'>;

/** Refuses a new order of an agent with no free fill left this month and no purchased one (`paidFills`). */
export async function requireFillLeft(deps: AllowanceDeps, trx: Transaction<DB>, agent: { agentId: string; paidFills: number }): Promise<void> {
  if (deps.fills.enabled && (await freeRemaining(deps, trx, agent.agentId)) + agent.paidFills <= 0) {
    throw problem('FILL_ALLOWANCE_EXHAUSTED', 'no fills remain this month: resting orders keep filling and cancels are always accepted; buy a fill pack or wait for the monthly reset (GET /me fills.resetsOn)');
  }
}

/**
 * The fills of one order off their owners' allowances (each fill counts once for each owner): this month's
 * free fills first, then purchased ones (never below zero). One read and at most two writes per owner, the
 * owners in agent-id order (a fixed lock order).
 */
export async function consumeFills(deps: AllowanceDeps, trx: Transaction<DB>, perAgent: ReadonlyMap<string, number>): Promise<void> {
  if (!deps.fills.enabled) return;
  for (const agentId of [...perAgent.keys()].sort()) {
    const n = perAgent.get(agentId)!;
    const free = Math.min(n, await freeRemaining(deps, trx, agentId));
    if (free > 0) {
      await trx
        .insertInto('fill_usage')
        .values({ agent_id: agentId, month: fillMonth(deps.clock.now()), free_used: free })
        .onConflict((oc) => oc.columns(['agent_id', 'month']).doUpdateSet({ free_used: sql`fill_usage.free_used + ${free}` }))
        .execute();
    }
    if (n > free) await trx.updateTable('agents').set({ paid_fills_remaining: sql`greatest(paid_fills_remaining - ${n - free}, 0)` }).where('id', '=', agentId).execute();
  }
}

async function freeRemaining(deps: AllowanceDeps, trx: Transaction<DB>, agentId: string): Promise<number> {
  const row = await trx.selectFrom('fill_usage').select('free_used').where('agent_id', '=', agentId).where('month', '=', fillMonth(deps.clock.now())).executeTakeFirst();
  // The free fills of the agent's reputation tier (a restricted tier has fewer, a trusted one more).
  const freePerMonth = deps.freeFillsOf ? await deps.freeFillsOf(trx, agentId) : deps.fills.freePerMonth;
  return Math.max(0, freePerMonth - (row?.free_used ?? 0));
}
