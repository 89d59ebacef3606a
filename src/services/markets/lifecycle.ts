/**
 * Market lifecycle on the service's clock: open → closed at close time (an order book's resting orders are cancelled
 * with it, through onMarketsClosed), market.resolution_due ahead of resolveBy,
 * and the operator's control-plane edges on the four axes (src/core/markets/controls.ts: one market.controlsChanged
 * per axis moved, isTradeable recomputed; a takedown cancels resting orders through onMarketsTakenDown). The
 * scheduler is idempotent: each edge is a conditional UPDATE, so two instances (or a retry) emit once.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { applyEdge, edgeRefusal, type ControlChange, type ControlEdge } from '../../core/markets/controls.ts';
import { isTradeable, type Controls, type MarketState } from '../../core/markets/states.ts';
import type { DB } from '../../db/schema.ts';
import type { Logger } from '../../core/logger.ts';
import type { EventBus } from '../events/bus.ts';
import { appendEvent } from '../events/outbox.ts';
import type { EndedMarket, EndedMarketsListener } from './ended-markets.ts';

/** How long before resolveBy market.resolution_due is emitted. */
export const RESOLUTION_DUE_LEAD_MS = 24 * 60 * 60 * 1000;

export type { ControlEdge } from '../../core/markets/controls.ts';

export interface ControlResult {
  /** Each axis the edge moved, in order (empty when the market already stood there). */
  changes: ControlChange[];
  controls: Controls;
  isTradeable: boolean;
}

export interface MarketLifecycle {
  /** Applies every edge due at the clock's now; returns how many markets changed. */
  tick(): Promise<{ closed: number; resolutionDue: number }>;
  /** Applies an operator edge: 404 MARKET_NOT_FOUND, 409 MARKET_CONTROL_REFUSED when it does not apply now. */
  setControl(chainId: number, address: string, edge: ControlEdge, reasonCode: string | null): Promise<ControlResult>;
  start(): void;
  stop(): Promise<void>;
}

export function createMarketLifecycle(deps: {
  db: Kysely<DB>;
  clock: Clock;
  events: EventBus;
  log: Logger;
  intervalMs: number;
  /** Told about the markets each tick closes (the runtime wires the order service). */
  onMarketsClosed?: EndedMarketsListener;
  /** Told about a market the operator takes down (its resting orders go). */
  onMarketsTakenDown?: EndedMarketsListener;
}): MarketLifecycle {
  const { db, clock, log } = deps;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;

  async function tick() {
    const now = clock.now();
    let ended: EndedMarket[] = [];
    const result = await db.transaction().execute(async (trx) => {
      const closed = await trx
        .updateTable('markets')
        .set({ state: 'closed', updated_at: now })
        .where('state', '=', 'open')
        .where('close_time', '<=', now)
        .returning(['address', 'ledger_market_id'])
        .execute();
      // Before any event is appended: the listener writes order events, whose locks come before the outbox's.
      ended = closed.map((m) => ({ address: m.address, ledgerMarketId: m.ledger_market_id === null ? null : BigInt(m.ledger_market_id) }));
      if (ended.length > 0) await deps.onMarketsClosed?.ending(trx, ended);
      const due = await trx
        .updateTable('markets')
        .set({ resolution_due_sent_at: now, updated_at: now })
        .where('state', 'in', ['open', 'closed'])
        .where('resolution_due_sent_at', 'is', null)
        .where('resolve_by', '<=', new Date(now.getTime() + RESOLUTION_DUE_LEAD_MS))
        .where('question', 'is not', null)
        .returning(['chain_id', 'address', 'question', 'resolve_by', 'created_at', 'creator'])
        .execute();
      for (const m of due) {
        await appendEvent(trx, clock, {
          type: 'market.resolution_due',
          chainId: m.chain_id,
          marketAddress: m.address,
          payload: { question: m.question, resolveBy: m.resolve_by.toISOString(), resolveFrom: m.created_at.toISOString(), creatorAddress: m.creator },
        });
      }
      return { closed: closed.length, resolutionDue: due.length };
    });
    if (ended.length > 0) deps.onMarketsClosed?.ended(ended);
    if (result.resolutionDue > 0 || ended.length > 0) deps.events.notify();
    return result;
  }

  return {
    tick,
    async setControl(chainId, address, edge, reasonCode) {
      const market = address.toLowerCase();
      let taken: EndedMarket[] = [];
      const out = await db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('markets')
          .select(['controls', 'state', 'close_time', 'ledger_market_id'])
          .where('chain_id', '=', chainId)
          .where('address', '=', market)
          .forUpdate()
          .executeTakeFirst();
        if (!row) throw problem('MARKET_NOT_FOUND', `market ${address} is not known on chain ${chainId}`);
        const controls = row.controls as unknown as Controls;
        const refused = edgeRefusal(controls, edge);
        if (refused !== null) throw problem('MARKET_CONTROL_REFUSED', `${edge} on ${market}: ${refused}`, { extensions: { edge, controls } });
        const { next, changes } = applyEdge(controls, edge);
        const tradeable = isTradeable(row.state as MarketState, next, row.close_time, clock.now());
        if (changes.length === 0) return { changes, controls: next, isTradeable: tradeable };
        await trx.updateTable('markets').set({ controls: JSON.stringify(next), updated_at: clock.now() }).where('chain_id', '=', chainId).where('address', '=', market).execute();
        // The cascade's writes (resting orders cancelled with their events) come before the outbox's counter lock.
        if (edge === 'takedown') {
          taken = [{ address: market, ledgerMarketId: row.ledger_market_id === null ? null : BigInt(row.ledger_market_id) }];
          await deps.onMarketsTakenDown?.ending(trx, taken);
        }
        for (const c of changes) {
          await appendEvent(trx, clock, { type: 'market.controlsChanged', chainId, marketAddress: market, payload: { ...c, reasonCode, isTradeable: tradeable } });
        }
        return { changes, controls: next, isTradeable: tradeable };
      });
      if (taken.length > 0) deps.onMarketsTakenDown?.ended(taken);
      if (out.changes.length > 0) deps.events.notify();
      return out;
    },
    start() {
      const loop = () => {
        running = tick()
          .catch((err: unknown) => log.warn({ err }, 'market lifecycle tick failed'))
          .finally(() => {
            if (stopped) return;
            timer = setTimeout(loop, deps.intervalMs);
            timer.unref();
          });
      };
      loop();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
