/**
 * The chain indexer: reads the markets lane's logs in block order from the lane's first deployment block and
 * projects them into PostgreSQL (see projection.ts). One batch of blocks is applied in one transaction together
 * with the cursor, so a crash mid-batch leaves either all of it or none: nothing is counted twice on restart.
 * A reorg shows as a stored block hash the chain no longer has; the indexer walks back to the newest stored
 * block the chain still agrees on, rolls the projection back to it and re-reads from there. A market whose
 * creation is gone from the chain is cancelled with reason CREATION_REORGED (docs/markets.md, "Indexer"); the
 * onMarketsVoided listener (the order service) cancels what rests on it in the same transaction.
 */
import { getAddress, parseAbi, type Address, type Hex, type Log, type PublicClient } from 'viem';
import type { Kysely, Transaction } from 'kysely';
import type { CollateralSymbol, MarketsLane } from '../../chain/markets-lane.ts';
import type { Clock } from '../../core/clock.ts';
import type { DB } from '../../db/schema.ts';
import type { Logger } from '../../core/logger.ts';
import type { ProjectionT } from '../../wire/markets.ts';
import type { EventBus } from '../events/bus.ts';
import { readMarketState, type MarketChainState } from './market-state.ts';
import { appendEvent } from '../events/outbox.ts';
import type { EndedMarket, EndedMarketsListener } from './ended-markets.ts';
import { applyCreatorFeesCollected, applyTrade, applyTransfer, createdMarketOf, registerMarket, rollbackAbove, type CreatedMarket, type TradeLog, type TransferLog } from './projection.ts';
import { ORDERBOOK_MARKET_CREATED, orderBookCreationOf, registerOrderBookMarket } from '../orderbook/markets.ts';

export interface MarketIndexer {
  /** Runs batches until the cursor reaches the head it saw when called. */
  syncNow(): Promise<void>;
  /** Asks the polling loop for a batch soon (after a transaction the service knows about). */
  kick(): void;
  start(): void;
  stop(): Promise<void>;
  projection(): Promise<ProjectionT>;
}

export interface IndexerOptions {
  db: Kysely<DB>;
  client: PublicClient;
  chainId: number;
  lane: MarketsLane;
  /** The block the lane's first contract was deployed in: nothing of ours is older. */
  fromBlock: bigint;
  collateral: readonly { symbol: CollateralSymbol; token: Address }[];
  events: EventBus;
  clock: Clock;
  log: Logger;
  pollMs?: number;
  batchBlocks?: number;
  /** A cursor more than this behind the head is reported unhealthy. */
  maxHealthyLagSeconds?: number;
  /** Told about every market the indexer voids (the runtime wires the order service). */
  onMarketsVoided?: EndedMarketsListener;
}

/** Block hashes kept for reorg detection; a reorg deeper than this restarts from the lane's first block. */
const BLOCK_WINDOW = 256n;

const EVENTS = parseAbi([
  'event MarketCreated(address indexed market, address indexed creator, address indexed collateral, uint8 outcomeCount, bytes32 questionHash, uint64 closeTime, uint32 resolutionWindow, uint256 liquidity, uint256 bond, uint256 subsidy, uint16 protocolFeeBps, uint16 creatorFeeBps)',
  'event Trade(address indexed trader, address indexed recipient, uint8 outcome, bool isBuy, uint256 shares, uint256 cost, uint256 protocolFee, uint256 creatorFee, uint256[] pricesAfter)',
  'event CreatorFeesCollected(address indexed creator, uint256 amount)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
]);

type DecodedLog = Log<bigint, number, false, undefined, true, typeof EVENTS>;

/** Decodes an outcome-token id: (uint160(market) << 8) | outcomeIndex (docs/contracts.md). */
export function decodeOutcomeId(id: bigint): { market: string; outcome: number } {
  return { market: getAddress(`0x${(id >> 8n).toString(16).padStart(40, '0')}`).toLowerCase(), outcome: Number(id & 0xffn) };
}

export function createMarketIndexer(o: IndexerOptions): MarketIndexer {
  const { db, client, chainId, lane, clock, log } = o;
  const batchBlocks = BigInt(o.batchBlocks ?? 2_000);
  const pollMs = o.pollMs ?? 1_000;
  const maxLag = o.maxHealthyLagSeconds ?? 60;
  const factories = new Set([lane.factories.binary, lane.factories.ternary].map((a) => a.toLowerCase()));
  const outcomeToken = lane.outcomeToken.toLowerCase();
  const orderbookFactory = lane.orderbookFactory;
  const symbolOf = new Map(o.collateral.map((c) => [c.token.toLowerCase(), c.symbol]));

  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let lastTick: { at: Date; ok: boolean; headNumber: bigint; headTime: number } | null = null;

  const readCursor = () => db.selectFrom('indexer_cursors').selectAll().where('chain_id', '=', chainId).executeTakeFirst();

  const stateAt = (market: Address, blockNumber: bigint) => readMarketState(client, market, blockNumber);

  /** Finds the newest stored block the chain still has, rolls back above it, and cancels creations that are gone. */
  async function handleReorg(cursorNumber: bigint): Promise<void> {
    const stored = await db.selectFrom('indexed_blocks').select(['block_number', 'block_hash']).where('chain_id', '=', chainId).where('block_number', '<=', cursorNumber.toString()).orderBy('block_number', 'desc').execute();
    let ancestor = o.fromBlock - 1n;
    for (const row of stored) {
      const block = await client.getBlock({ blockNumber: BigInt(row.block_number) }).catch(() => null);
      if (block && block.hash === row.block_hash) {
        ancestor = BigInt(row.block_number);
        break;
      }
    }
    const ancestorBlock = await client.getBlock({ blockNumber: ancestor });
    const orphaned = await db.selectFrom('markets').select(['address', 'created_tx', 'question']).where('chain_id', '=', chainId).where('created_block', '>', ancestor.toString()).where('state', '<>', 'void').execute();
    // A creation whose transaction the chain no longer knows is gone for good; one that is pending or re-mined
    // elsewhere is confirmed again when the indexer reads its new log.
    const gone: string[] = [];
    for (const m of orphaned) {
      const receipt = await client.getTransactionReceipt({ hash: m.created_tx as Hex }).catch(() => null);
      const pending = receipt ? null : await client.getTransaction({ hash: m.created_tx as Hex }).catch(() => null);
      if (!receipt && !pending) gone.push(m.address);
    }
    const touchedBefore = await db
      .selectFrom('market_trades')
      .select('market')
      .distinct()
      .where('chain_id', '=', chainId)
      .where('block_number', '>', ancestor.toString())
      .execute();
    const refresh = new Map<string, MarketChainState>();
    for (const { market } of touchedBefore) {
      if (orphaned.some((m) => m.address === market)) continue;
      refresh.set(market, await stateAt(getAddress(market), ancestor));
    }
    let voided: EndedMarket[] = [];
    await db.transaction().execute(async (trx) => {
      await rollbackAbove(trx, chainId, ancestor);
      for (const [market, s] of refresh) {
        await trx
          .updateTable('markets')
          .set({ prices: JSON.stringify(s.prices), outstanding: JSON.stringify(s.outstanding), creator_fees: s.creatorFees, updated_at: clock.now() })
          .where('chain_id', '=', chainId)
          .where('address', '=', market)
          .execute();
      }
      if (orphaned.length > 0) {
        await trx.updateTable('markets').set({ confirmed: false, updated_at: clock.now() }).where('chain_id', '=', chainId).where('address', 'in', orphaned.map((m) => m.address)).execute();
      }
      voided = await cancelReorged(trx, gone);
      await trx
        .insertInto('indexer_cursors')
        .values({ chain_id: chainId, block_number: ancestor.toString(), block_hash: ancestorBlock.hash, updated_at: clock.now() })
        .onConflict((oc) => oc.column('chain_id').doUpdateSet({ block_number: ancestor.toString(), block_hash: ancestorBlock.hash, updated_at: clock.now() }))
        .execute();
    });
    if (voided.length > 0) o.onMarketsVoided?.ended(voided);
    o.events.notify();
    log.warn({ chainId, from: cursorNumber.toString(), ancestor: ancestor.toString(), cancelled: gone.length }, 'indexer: reorg rolled back');
  }

  /** Voids markets whose creation is gone, with market.cancelled; the listener cancels what rests on them. Returns the markets voided now. */
  async function cancelReorged(trx: Transaction<DB>, addresses: readonly string[]): Promise<EndedMarket[]> {
    const voided: EndedMarket[] = [];
    for (const address of addresses) {
      const updated = await trx
        .updateTable('markets')
        .set({ state: 'void', cancel_reason: 'CREATION_REORGED', confirmed: false, updated_at: clock.now() })
        .where('chain_id', '=', chainId)
        .where('address', '=', address)
        .where('state', '<>', 'void')
        .returning(['address', 'ledger_market_id'])
        .executeTakeFirst();
      if (!updated) continue;
      await appendEvent(trx, clock, { type: 'market.cancelled', chainId, marketAddress: address, payload: { reason: 'CREATION_REORGED' } });
      voided.push({ address, ledgerMarketId: updated.ledger_market_id === null ? null : BigInt(updated.ledger_market_id) });
    }
    if (voided.length > 0) await o.onMarketsVoided?.ending(trx, voided);
    return voided;
  }

  /** One batch. Returns true when more blocks remain. */
  async function tick(): Promise<boolean> {
    const head = await client.getBlock({ blockTag: 'latest' });
    const cursor = await readCursor();
    let last = o.fromBlock - 1n;
    if (cursor) {
      last = BigInt(cursor.block_number);
      const atCursor = await client.getBlock({ blockNumber: last }).catch(() => null);
      if (!atCursor || atCursor.hash !== cursor.block_hash) {
        await handleReorg(last);
        return true;
      }
    }
    lastTick = { at: clock.now(), ok: true, headNumber: head.number, headTime: Number(head.timestamp) };
    if (last >= head.number) return false;
    const from = last + 1n;
    const to = from + batchBlocks - 1n < head.number ? from + batchBlocks - 1n : head.number;
    const toBlock = await client.getBlock({ blockNumber: to });
    const logs = (await client.getLogs({ events: EVENTS, fromBlock: from, toBlock: to, strict: true })) as DecodedLog[];
    // Order-book markets: only their factory's creations (play money trades in the ledger, not on chain).
    const orderbookLogs = await client.getLogs({ address: orderbookFactory, event: ORDERBOOK_MARKET_CREATED, fromBlock: from, toBlock: to, strict: true });
    const recheck = await client.getBlock({ blockNumber: to });
    if (recheck.hash !== toBlock.hash) return true; // the chain moved under us; the next tick sees the reorg

    // Everything read from the chain is gathered before the transaction opens.
    const times = new Map<bigint, { hash: string; time: Date }>([[to, { hash: toBlock.hash, time: new Date(Number(toBlock.timestamp) * 1000) }]]);
    for (const l of [...logs, ...orderbookLogs]) {
      if (!times.has(l.blockNumber)) {
        const b = await client.getBlock({ blockNumber: l.blockNumber });
        times.set(l.blockNumber, { hash: b.hash, time: new Date(Number(b.timestamp) * 1000) });
      }
    }
    const created: CreatedMarket[] = [];
    for (const l of logs) {
      if (l.eventName !== 'MarketCreated' || !factories.has(l.address.toLowerCase())) continue;
      const a = l.args;
      const symbol = symbolOf.get(a.collateral.toLowerCase());
      if (!symbol) continue;
      const s = await stateAt(a.market, l.blockNumber);
      created.push(
        createdMarketOf(
          a,
          { chainId, factory: l.address, collateralSymbol: symbol, blockNumber: l.blockNumber, blockHash: l.blockHash, txHash: l.transactionHash, blockTime: times.get(l.blockNumber)!.time },
          s,
        ),
      );
    }

    const marketAddresses = [...new Set(logs.filter((l) => l.eventName === 'Trade' || l.eventName === 'CreatorFeesCollected').map((l) => l.address.toLowerCase()))];
    const known = new Set(created.map((c) => c.address.toLowerCase()));
    if (marketAddresses.length > 0) {
      const rows = await db.selectFrom('markets').select('address').where('chain_id', '=', chainId).where('address', 'in', marketAddresses).execute();
      for (const r of rows) known.add(r.address);
    }

    const orderbookCreated = orderbookLogs.map((l) => orderBookCreationOf(l, { chainId, blockTime: times.get(l.blockNumber)!.time }));

    let inserted = 0;
    let voided: EndedMarket[] = [];
    await db.transaction().execute(async (trx) => {
      for (const c of orderbookCreated) {
        if ((await registerOrderBookMarket(trx, clock, c, { confirmed: true })).inserted) inserted++;
      }
      for (const l of logs) {
        const market = l.address.toLowerCase();
        if (l.eventName === 'MarketCreated') {
          const c = created.find((m) => m.txHash === l.transactionHash && m.address.toLowerCase() === l.args.market.toLowerCase());
          if (c && (await registerMarket(trx, clock, c, { confirmed: true })).inserted) inserted++;
        } else if (l.eventName === 'Trade' && known.has(market)) {
          const a = l.args;
          const t: TradeLog = {
            chainId,
            txHash: l.transactionHash,
            logIndex: l.logIndex,
            blockNumber: l.blockNumber,
            blockHash: l.blockHash,
            blockTime: times.get(l.blockNumber)!.time,
            market,
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
          await applyTrade(trx, clock, t);
        } else if (l.eventName === 'CreatorFeesCollected' && known.has(market)) {
          await applyCreatorFeesCollected(trx, clock, { chainId, market, amount: l.args.amount });
        } else if ((l.eventName === 'TransferSingle' || l.eventName === 'TransferBatch') && market === outcomeToken) {
          const ids = l.eventName === 'TransferSingle' ? [l.args.id] : l.args.ids;
          const values = l.eventName === 'TransferSingle' ? [l.args.value] : l.args.values;
          for (const [i, id] of ids.entries()) {
            const { market: m, outcome } = decodeOutcomeId(id);
            const t: TransferLog = { chainId, txHash: l.transactionHash, logIndex: l.logIndex, batchIndex: i, blockNumber: l.blockNumber, market: m, outcome, from: l.args.from, to: l.args.to, amount: values[i]! };
            await applyTransfer(trx, t);
          }
        }
      }
      for (const [number, b] of times) {
        await trx
          .insertInto('indexed_blocks')
          .values({ chain_id: chainId, block_number: number.toString(), block_hash: b.hash, block_time: b.time })
          .onConflict((oc) => oc.columns(['chain_id', 'block_number']).doUpdateSet({ block_hash: b.hash, block_time: b.time }))
          .execute();
      }
      await trx.deleteFrom('indexed_blocks').where('chain_id', '=', chainId).where('block_number', '<', (to - BLOCK_WINDOW).toString()).execute();
      // Registered from a receipt (commit-deploy) but absent from the chain the indexer has now read past.
      const unseen = await trx.selectFrom('markets').select('address').where('chain_id', '=', chainId).where('confirmed', '=', false).where('state', '<>', 'void').where('created_block', '<=', to.toString()).execute();
      voided = await cancelReorged(trx, unseen.map((m) => m.address));
      await trx
        .insertInto('indexer_cursors')
        .values({ chain_id: chainId, block_number: to.toString(), block_hash: toBlock.hash, updated_at: clock.now() })
        .onConflict((oc) => oc.column('chain_id').doUpdateSet({ block_number: to.toString(), block_hash: toBlock.hash, updated_at: clock.now() }))
        .execute();
    });
    if (voided.length > 0) o.onMarketsVoided?.ended(voided);
    if (logs.length + orderbookLogs.length > 0 || voided.length > 0) o.events.notify();
    if (inserted > 0) log.info({ chainId, markets: inserted, to: to.toString() }, 'indexer: markets registered');
    return to < head.number;
  }

  async function runUntilCaughtUp(): Promise<void> {
    try {
      while (await tick()) {
        /* next batch */
      }
    } catch (err) {
      if (lastTick) lastTick = { ...lastTick, ok: false };
      throw err;
    }
  }

  const syncNow = (): Promise<void> => {
    // One run at a time; a caller arriving during a run waits for it and then runs once more, so it sees
    // everything mined before it called.
    const next = (running ?? Promise.resolve()).catch(() => undefined).then(runUntilCaughtUp);
    const tracked = next.finally(() => {
      if (running === tracked) running = null;
    });
    running = tracked;
    return tracked;
  };

  const schedule = (delay: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      syncNow()
        .catch((err: unknown) => log.warn({ err }, 'indexer: batch failed; retrying'))
        .finally(() => schedule(pollMs));
    }, delay);
    timer.unref();
  };

  return {
    syncNow,
    kick: () => schedule(0),
    start() {
      stopped = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
    async projection(): Promise<ProjectionT> {
      const cursor = await readCursor();
      if (!cursor || !lastTick) {
        return { source: 'indexer', fresh: false, checkedAt: lastTick?.at.toISOString() ?? null, cursors: [{ chainId, blockNumber: cursor?.block_number ?? null, lagSeconds: null, healthy: false }] };
      }
      const block = await db.selectFrom('indexed_blocks').select('block_time').where('chain_id', '=', chainId).where('block_number', '=', cursor.block_number).executeTakeFirst();
      const cursorTime = block ? Math.floor(block.block_time.getTime() / 1000) : lastTick.headTime;
      const lagSeconds = BigInt(cursor.block_number) >= lastTick.headNumber ? 0 : Math.max(0, lastTick.headTime - cursorTime);
      const healthy = lastTick.ok && lagSeconds <= maxLag;
      return { source: 'indexer', fresh: healthy, checkedAt: lastTick.at.toISOString(), cursors: [{ chainId, blockNumber: cursor.block_number, lagSeconds, healthy }] };
    },
  };
}
