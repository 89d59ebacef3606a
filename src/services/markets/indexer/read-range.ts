// Reads one batch of blocks from the chain: the lane's logs, their blocks' hashes and times, and the creations with
// the market state at their block. Everything is read before the batch's transaction opens.
import { parseAbiItem, type Log } from 'viem';
import { createdMarketOf, type CreatedMarket } from '../created-market.ts';
import { readMarketState } from '../market-state.ts';
import { ORDERBOOK_MARKET_CREATED, orderBookCreationOf, type OrderBookCreation } from '../../orderbook/markets.ts';
import type { BlockStamp } from './cursor.ts';
import type { IndexerDeps } from './deps.ts';
import { LANE_EVENTS, type LaneLog } from './lane-events.ts';
import { placeResolverLog, readResolverLogs, type PlacedResolutionLog } from './resolutions.ts';

export const CHALLENGE_BOND_SETTLED = parseAbiItem('event ChallengeBondSettled(address indexed market, address indexed to, uint256 amount, bool refunded)');
export type ChallengeBondLog = Log<bigint, number, false, typeof CHALLENGE_BOND_SETTLED, true>;

export interface BlockRange {
  /** The last block of the range and its hash: where the cursor moves. */
  to: bigint;
  toHash: string;
  /** The lane's logs in block order. */
  logs: LaneLog[];
  /** Every block a log is in, and `to`. */
  blocks: Map<bigint, BlockStamp>;
  automatedCreations: CreatedMarket[];
  orderBookCreations: OrderBookCreation[];
  /** The resolver's logs in chain order (applied after the creations: a market is resolved only after it exists). */
  resolutions: PlacedResolutionLog[];
  /** The resolver's ChallengeBondSettled logs (money out: a challenge bond paid back or to the creator). */
  challengeBonds: ChallengeBondLog[];
  /** Markets (lowercase) whose Trade and CreatorFeesCollected logs count: registered, or created in this range. */
  known: Set<string>;
}

/** The range [from, to], or null when the chain moved under the read (the next batch sees the reorg). */
export async function readRange(deps: IndexerDeps, from: bigint, to: bigint): Promise<BlockRange | null> {
  const { client } = deps;
  const toBlock = await client.getBlock({ blockNumber: to });
  const logs = (await client.getLogs({ events: LANE_EVENTS, fromBlock: from, toBlock: to, strict: true })) as LaneLog[];
  // Order-book markets: only their factory's creations (play money trades in the ledger, not on chain).
  const orderbookLogs = await client.getLogs({ address: deps.lane.orderbookFactory, event: ORDERBOOK_MARKET_CREATED, fromBlock: from, toBlock: to, strict: true });
  const resolverLogs = await readResolverLogs(deps, from, to);
  const challengeBonds = (await client.getLogs({ address: deps.lane.resolver, event: CHALLENGE_BOND_SETTLED, fromBlock: from, toBlock: to, strict: true })) as ChallengeBondLog[];
  const recheck = await client.getBlock({ blockNumber: to });
  if (recheck.hash !== toBlock.hash) return null;
  const blocks = await blockStamps(deps, { number: to, ...stampOf(toBlock) }, [...logs, ...orderbookLogs, ...resolverLogs, ...challengeBonds]);
  const automatedCreations = await automatedCreationsIn(deps, logs, blocks);
  const known = await knownMarkets(deps, logs, automatedCreations);
  const orderBookCreations = orderbookLogs.map((l) => orderBookCreationOf(l, { chainId: deps.chainId, blockTime: blocks.get(l.blockNumber)!.time }));
  const resolutions = resolverLogs.map((l) => placeResolverLog(l, blocks.get(l.blockNumber)!.time));
  return { to, toHash: toBlock.hash, logs, blocks, automatedCreations, orderBookCreations, resolutions, challengeBonds, known };
}

const stampOf = (b: { hash: string; timestamp: bigint }): BlockStamp => ({ hash: b.hash, time: new Date(Number(b.timestamp) * 1000) });

async function blockStamps(deps: Pick<IndexerDeps, 'client'>, last: BlockStamp & { number: bigint }, logs: readonly { blockNumber: bigint }[]): Promise<Map<bigint, BlockStamp>> {
  const blocks = new Map<bigint, BlockStamp>([[last.number, { hash: last.hash, time: last.time }]]);
  for (const l of logs) {
    if (!blocks.has(l.blockNumber)) blocks.set(l.blockNumber, stampOf(await deps.client.getBlock({ blockNumber: l.blockNumber })));
  }
  return blocks;
}

/** The lane factories' creations in a collateral we serve, each with the market's state at its block. */
async function automatedCreationsIn(deps: IndexerDeps, logs: readonly LaneLog[], blocks: ReadonlyMap<bigint, BlockStamp>): Promise<CreatedMarket[]> {
  const created: CreatedMarket[] = [];
  for (const l of logs) {
    if (l.eventName !== 'MarketCreated' || !deps.lane.factories.has(l.address.toLowerCase())) continue;
    const symbol = deps.lane.symbolOf.get(l.args.collateral.toLowerCase());
    if (!symbol) continue;
    const state = await readMarketState(deps.client, l.args.market, l.blockNumber);
    const at = { chainId: deps.chainId, factory: l.address, collateralSymbol: symbol, blockNumber: l.blockNumber, blockHash: l.blockHash, txHash: l.transactionHash, blockTime: blocks.get(l.blockNumber)!.time };
    created.push(createdMarketOf(l.args, at, state));
  }
  return created;
}

async function knownMarkets(deps: Pick<IndexerDeps, 'db' | 'chainId'>, logs: readonly LaneLog[], created: readonly CreatedMarket[]): Promise<Set<string>> {
  // Every market log but a creation: trades and the money-out logs (anyone can emit look-alikes; only ours count).
  const traded = [...new Set(logs.filter((l) => l.eventName !== 'MarketCreated' && l.eventName !== 'TransferSingle' && l.eventName !== 'TransferBatch').map((l) => l.address.toLowerCase()))];
  const known = new Set(created.map((c) => c.address.toLowerCase()));
  if (traded.length > 0) {
    const rows = await deps.db.selectFrom('markets').select('address').where('chain_id', '=', deps.chainId).where('address', 'in', traded).execute();
    for (const r of rows) known.add(r.address);
  }
  return known;
}
