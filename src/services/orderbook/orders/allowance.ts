/**
 * The fill allowance as the order loop meets it (docs/orderbook.md "Fill allowance"): a new order needs a fill
 * left, and every fill counts once for each of its two owners, free fills of the month first. A batch of placements
 * reads its agents' allowances once and counts its fills in memory as they happen, so an agent's later order in the
 * batch sees the fills of the earlier ones; the counts are written once, at the end of the batch.
 */
import { sql, type Transaction } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import { fillMonth } from '../../../core/fill-allowance.ts';
import type { Account } from '../../../core/ledger/types.ts';
import { runStep, type Step } from '../../../db/pipeline.ts';
import { unnestRows } from '../../../db/unnest.ts';
import type { DB } from '../../../db/schema.ts';
import type { OrderBookDeps, OrderLoopError } from './types.ts';
import { fixedStatement } from '../../../db/statement.ts';

type AllowanceDeps = Pick<OrderBookDeps, 'clock' | 'fills' | 'freeFillsOf' | 'fewestFreeFills'>;

/** No fills remain this month (402). */
export type FillAllowanceError = OrderLoopError<'FILL_ALLOWANCE_EXHAUSTED'>;

interface Usage {
  freeUsed: number;
  paid: number;
}

/**
 * The fewest free fills per month any agent has, as whoever supplies `freeFillsOf` says: while an agent's free fills
 * used stay below it, its tier need not be read (a read of several statements per agent and batch).
 */
const fewestFreeFills = (deps: AllowanceDeps): number => (deps.freeFillsOf ? (deps.fewestFreeFills ?? 0) : deps.fills.freePerMonth);

const READ_ALLOWANCES = fixedStatement(`SELECT a.id, a.paid_fills_remaining, u.free_used FROM agents AS a
  LEFT JOIN fill_usage AS u ON u.agent_id = a.id AND u.month = $1 WHERE a.id = any($2::uuid[])`);

/** The allowances of a batch's agents: what they had when the batch began, and the fills the batch counted since. */
export class Allowances {
  readonly #deps: AllowanceDeps;
  readonly #trx: Transaction<DB>;
  readonly #usage: Map<string, Usage>;
  // An agent's free fills per month under its tier, read once per batch.
  readonly #freePerMonth = new Map<string, number>();
  // Fills counted in this batch, per owner (an agent's wallet; an agent trades under one).
  readonly #counted = new Map<Account, number>();

  private constructor(deps: AllowanceDeps, trx: Transaction<DB>, usage: Map<string, Usage>) {
    this.#deps = deps;
    this.#trx = trx;
    this.#usage = usage;
  }

  /** None read: what an agent has is read when its tier matters (consumeFills). */
  static none(deps: AllowanceDeps, trx: Transaction<DB>): Allowances {
    return new Allowances(deps, trx, new Map());
  }

  /** The statement that reads this month's free fills used and the purchased fills left of each agent (null: nothing to read). */
  static read(deps: AllowanceDeps, trx: Transaction<DB>, agentIds: readonly string[]): Step<Allowances> | null {
    if (!deps.fills.enabled || agentIds.length === 0) return null;
    const query = READ_ALLOWANCES(fillMonth(deps.clock.now()), [...agentIds]);
    return {
      query,
      read: (result) => {
        const rows = result.rows as { id: string; paid_fills_remaining: number; free_used: number | null }[];
        return new Allowances(deps, trx, new Map(rows.map((r) => [r.id, { freeUsed: r.free_used ?? 0, paid: r.paid_fills_remaining }])));
      },
    };
  }

  /** Refuses a new order of an agent with no free fill left this month and no purchased one, counting this batch's fills. */
  async require(agent: { agentId: string; owner: Account }): Promise<void> {
    if (!this.#deps.fills.enabled) return;
    const usage = this.#usage.get(agent.agentId) ?? { freeUsed: 0, paid: 0 };
    const counted = this.#counted.get(agent.owner) ?? 0;
    // Purchased fills alone cover it, or free fills of every tier: the tier need not be read.
    if (usage.paid > counted || usage.freeUsed + counted < fewestFreeFills(this.#deps)) return;
    const free = Math.max(0, (await this.freePerMonthOf(agent.agentId)) - usage.freeUsed);
    const left = Math.max(0, free - counted) + Math.max(0, usage.paid - Math.max(0, counted - free));
    if (left <= 0) {
      throw problem('FILL_ALLOWANCE_EXHAUSTED', 'no fills remain this month: resting orders keep filling and cancels are always accepted; buy a fill pack or wait for the monthly reset (GET /me fills.resetsOn)');
    }
  }

  /** One fill of the batch counted for an owner. */
  count(owner: Account): void {
    this.#counted.set(owner, (this.#counted.get(owner) ?? 0) + 1);
  }

  /** The agent's free fills per month under its reputation tier (`fills.freePerMonth` without tiers). */
  async freePerMonthOf(agentId: string): Promise<number> {
    let n = this.#freePerMonth.get(agentId);
    if (n === undefined) {
      n = this.#deps.freeFillsOf ? await this.#deps.freeFillsOf(this.#trx, agentId) : this.#deps.fills.freePerMonth;
      this.#freePerMonth.set(agentId, n);
    }
    return n;
  }
}

/**
 * Takes fills off their owners' allowances (each fill counts once for each owner): this month's free fills first,
 * then purchased ones (never below zero), the agents in id order (a fixed lock order). When every agent's fills fit
 * in the smallest tier's free fills, one statement counts them all as free wherever that keeps the agent within it
 * (countFreeFills); the others are read and counted one by one (their tier read when it matters).
 */
export async function consumeFills(deps: AllowanceDeps, trx: Transaction<DB>, perAgent: ReadonlyMap<string, number>, allowances?: Allowances, left?: readonly string[]): Promise<void> {
  if (!deps.fills.enabled || perAgent.size === 0) return;
  let agents = left ? [...left] : [...perAgent.keys()].sort();
  if (!left) {
    const fast = countFreeFills(deps, trx, perAgent);
    if (fast) agents = await runStep(trx, fast);
  }
  if (agents.length === 0) return;
  const month = fillMonth(deps.clock.now());
  const fewest = fewestFreeFills(deps);
  const tiers = allowances ?? Allowances.none(deps, trx);
  const used = new Map((await trx.selectFrom('fill_usage').select(['agent_id', 'free_used']).where('agent_id', 'in', agents).where('month', '=', month).execute()).map((r) => [r.agent_id, r.free_used]));
  const split = [];
  for (const agentId of agents) {
    const n = perAgent.get(agentId)!;
    const before = used.get(agentId) ?? 0;
    const freePerMonth = before + n <= fewest ? fewest : await tiers.freePerMonthOf(agentId);
    const free = Math.min(n, Math.max(0, freePerMonth - before));
    split.push({ agentId, free, paid: n - free });
  }
  const freeRows = split.filter((s) => s.free > 0).map((s) => ({ agent_id: s.agentId, month, free_used: s.free }));
  if (freeRows.length > 0) {
    await trx
      .insertInto('fill_usage')
      .values(freeRows)
      .onConflict((oc) => oc.columns(['agent_id', 'month']).doUpdateSet({ free_used: sql`fill_usage.free_used + excluded.free_used` }))
      .execute();
  }
  for (const s of split) {
    if (s.paid > 0) await trx.updateTable('agents').set({ paid_fills_remaining: sql`greatest(paid_fills_remaining - ${s.paid}, 0)` }).where('id', '=', s.agentId).execute();
  }
}

/**
 * The first statement of consumeFills, when every agent's fills fit in the smallest tier's free fills: counts them as
 * free wherever that keeps the agent within it (every row locked, in agent order, also where it stays as it was);
 * answers the agents it left for consumeFills (`left`). Null: nothing to count, or the fills do not fit.
 */
export function countFreeFills(deps: AllowanceDeps, trx: Transaction<DB>, perAgent: ReadonlyMap<string, number>): Step<string[]> | null {
  if (!deps.fills.enabled || perAgent.size === 0) return null;
  const fewest = fewestFreeFills(deps);
  const agents = [...perAgent.keys()].sort();
  if (!agents.every((agentId) => perAgent.get(agentId)! <= fewest)) return null;
  const month = fillMonth(deps.clock.now());
  const query = sql`INSERT INTO fill_usage (agent_id, month, free_used)
    SELECT u.agent_id::uuid, ${month}, u.free_used::int FROM ${unnestRows('u', ['agent_id', 'free_used'], agents.map((agentId) => [agentId, perAgent.get(agentId)!]))}
    ON CONFLICT (agent_id, month) DO UPDATE SET free_used = fill_usage.free_used + excluded.free_used WHERE fill_usage.free_used + excluded.free_used <= ${fewest}
    RETURNING agent_id`.compile(trx);
  return {
    query,
    read: ({ rows }) => {
      const done = new Set(rows.map((r) => r.agent_id as string));
      return agents.filter((agentId) => !done.has(agentId));
    },
  };
}
