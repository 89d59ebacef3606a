/**
 * The resolver's logs (docs/resolution.md "On chain"): read with a batch, then, inside its transaction, each log of a
 * market we registered is kept once (keyed by the log), folded into the market's resolution record, moves the
 * market's state, and appends the events it announces (src/core/resolution/record.ts). A reorg deletes the logs above
 * its ancestor and refolds what is left.
 */
import type { Transaction } from 'kysely';
import { parseAbi, type Log } from 'viem';
import { applyResolutionLog, eventsOf, foldResolution, marketStateOf, resolutionLogFromJson, resolutionLogToJson, resolutionRecordFromJson, resolutionRecordToJson, ROUTES, VERDICT_KINDS, VOTE_REASONS, type ResolutionLog, type ResolutionRecord } from '../../../core/resolution/record.ts';
import type { DB } from '../../../db/schema.ts';
import { appendEvent } from '../../events/outbox.ts';
import { markCouncilDecided } from '../../resolution/council-decided.ts';
import type { EndedMarket } from '../ended-markets.ts';
import type { IndexerDeps } from './deps.ts';

export const RESOLVER_EVENTS = parseAbi([
  'event ResolutionProposed(address indexed market, uint8 outcome, address indexed proposer, uint64 challengeDeadline)',
  'event ResolutionChallenged(address indexed market, address indexed challenger, uint8 counterOutcome, uint256 bond)',
  'event VoteOpened(address indexed market, uint8 round, uint64 voteDeadline, uint8 reason)',
  'event VoteClosed(address indexed market, uint8 round, uint8 kind, uint8 outcome, bytes32 ballotRoot, uint32 ballotCount)',
  'event CouncilDecided(address indexed market, uint8 outcome, address[] signers)',
  'event MarketResolved(address indexed market, uint8 outcome, uint8 route, bool creatorSlashed)',
]);

export type ResolverLog = Log<bigint, number, false, undefined, true, typeof RESOLVER_EVENTS>;

/** A decoded resolver log with where it is. */
export interface PlacedResolutionLog {
  market: string;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  log: ResolutionLog;
}

export async function readResolverLogs(deps: Pick<IndexerDeps, 'client' | 'lane'>, from: bigint, to: bigint): Promise<ResolverLog[]> {
  return (await deps.client.getLogs({ address: deps.lane.resolver, events: RESOLVER_EVENTS, fromBlock: from, toBlock: to, strict: true })) as ResolverLog[];
}

const seconds = (s: bigint | number): Date => new Date(Number(s) * 1000);

/** The domain form of a resolver log; `at` is its block's time. */
export function placeResolverLog(l: ResolverLog, at: Date): PlacedResolutionLog {
  const where = { market: l.args.market.toLowerCase(), txHash: l.transactionHash, logIndex: l.logIndex, blockNumber: l.blockNumber };
  switch (l.eventName) {
    case 'ResolutionProposed':
      return { ...where, log: { kind: 'proposed', at, outcome: l.args.outcome, proposer: l.args.proposer.toLowerCase(), challengeDeadline: seconds(l.args.challengeDeadline) } };
    case 'ResolutionChallenged':
      return { ...where, log: { kind: 'challenged', at, challenger: l.args.challenger.toLowerCase(), counterOutcome: l.args.counterOutcome, bond: l.args.bond } };
    case 'VoteOpened':
      return { ...where, log: { kind: 'vote_opened', at, round: l.args.round, voteDeadline: seconds(l.args.voteDeadline), reason: VOTE_REASONS[l.args.reason]! } };
    case 'VoteClosed':
      return { ...where, log: { kind: 'vote_closed', at, round: l.args.round, verdict: VERDICT_KINDS[l.args.kind]!, outcome: l.args.outcome, ballotRoot: l.args.ballotRoot, ballotCount: l.args.ballotCount } };
    case 'CouncilDecided':
      return { ...where, log: { kind: 'council_decided', at, outcome: l.args.outcome, signers: l.args.signers.map((s) => s.toLowerCase()) } };
    case 'MarketResolved':
      return { ...where, log: { kind: 'resolved', at, outcome: l.args.outcome, route: ROUTES[l.args.route] ?? 'undisputed', creatorSlashed: l.args.creatorSlashed } };
  }
}

type ApplyDeps = Pick<IndexerDeps, 'chainId' | 'clock'>;

/**
 * Applies a batch's resolver logs in chain order; logs of markets we did not register are skipped. Returns the open
 * markets the logs stopped (a proposal before close time), for the listener that ends their resting orders.
 */
export async function applyResolutionLogs(trx: Transaction<DB>, deps: Pick<IndexerDeps, 'chainId' | 'clock' | 'onMarketsStopped'>, logs: readonly PlacedResolutionLog[]): Promise<EndedMarket[]> {
  const stopped: EndedMarket[] = [];
  for (const p of logs) {
    const market = await trx.selectFrom('markets').select(['cancel_reason', 'state', 'ledger_market_id']).where('chain_id', '=', deps.chainId).where('address', '=', p.market).executeTakeFirst();
    if (!market) continue;
    const kept = await trx
      .insertInto('resolution_logs')
      .values({ chain_id: deps.chainId, tx_hash: p.txHash, log_index: p.logIndex, block_number: p.blockNumber.toString(), market: p.market, log: JSON.stringify(resolutionLogToJson(p.log)) })
      .onConflict((oc) => oc.columns(['chain_id', 'tx_hash', 'log_index']).doNothing())
      .returning('log_index')
      .executeTakeFirst();
    if (!kept) continue; // applied by an earlier run of this batch
    const before = await recordOf(trx, deps.chainId, p.market);
    const after = applyResolutionLog(before, p.log);
    await writeRecord(trx, deps, p.market, after, market.cancel_reason !== null);
    if (market.state === 'open' && market.cancel_reason === null) {
      stopped.push({ address: p.market, ledgerMarketId: market.ledger_market_id === null ? null : BigInt(market.ledger_market_id) });
    }
    // Members who sent councilDecide themselves skipped the signatures here: the decision is announced with its log.
    if (p.log.kind === 'council_decided') await markCouncilDecided(trx, deps, p.market, before?.voteRound ?? 1);
    for (const e of eventsOf(p.log, before, { chainId: deps.chainId, address: p.market })) {
      await appendEvent(trx, deps.clock, { type: e.type, chainId: deps.chainId, marketAddress: p.market, payload: e.payload });
    }
  }
  // Before the batch commits, like a close at close time: the listener cancels what rests on them.
  if (stopped.length > 0) await deps.onMarketsStopped?.ending(trx, stopped);
  return stopped;
}

/** After a reorg: the logs above the ancestor are gone; each market they touched is refolded from what is left. */
export async function rollbackResolutionsAbove(trx: Transaction<DB>, deps: ApplyDeps, ancestor: bigint): Promise<string[]> {
  const removed = await trx.deleteFrom('resolution_logs').where('chain_id', '=', deps.chainId).where('block_number', '>', ancestor.toString()).returning('market').execute();
  const touched = [...new Set(removed.map((r) => r.market))];
  for (const market of touched) {
    const rows = await trx.selectFrom('resolution_logs').select('log').where('chain_id', '=', deps.chainId).where('market', '=', market).orderBy('block_number').orderBy('log_index').execute();
    const record = foldResolution(rows.map((r) => resolutionLogFromJson(r.log)));
    const row = await trx.selectFrom('markets').select(['cancel_reason', 'close_time']).where('chain_id', '=', deps.chainId).where('address', '=', market).executeTakeFirst();
    if (!row) continue;
    const cancelled = row.cancel_reason !== null;
    if (record) {
      await writeRecord(trx, deps, market, record, cancelled);
      continue;
    }
    await trx.deleteFrom('market_resolutions').where('chain_id', '=', deps.chainId).where('market', '=', market).execute();
    if (cancelled) continue;
    const state = row.close_time.getTime() <= deps.clock.now().getTime() ? 'closed' : 'open';
    await trx.updateTable('markets').set({ state, updated_at: deps.clock.now() }).where('chain_id', '=', deps.chainId).where('address', '=', market).execute();
  }
  return touched;
}

async function recordOf(trx: Transaction<DB>, chainId: number, market: string): Promise<ResolutionRecord | null> {
  const row = await trx.selectFrom('market_resolutions').select('record').where('chain_id', '=', chainId).where('market', '=', market).executeTakeFirst();
  return row ? resolutionRecordFromJson(row.record) : null;
}

/** Stores the record and moves the market's state (a market cancelled, e.g. by a reorged creation, keeps its state). */
async function writeRecord(trx: Transaction<DB>, deps: ApplyDeps, market: string, record: ResolutionRecord, cancelled: boolean): Promise<void> {
  const now = deps.clock.now();
  const values = {
    phase: record.phase,
    vote_round: record.voteRound,
    challenge_deadline: record.challengeDeadline,
    vote_deadline: record.voteDeadline,
    final_outcome: record.finalOutcome,
    record: JSON.stringify(resolutionRecordToJson(record)),
    updated_at: now,
  };
  await trx
    .insertInto('market_resolutions')
    .values({ chain_id: deps.chainId, market, ...values })
    .onConflict((oc) => oc.columns(['chain_id', 'market']).doUpdateSet(values))
    .execute();
  if (!cancelled) await trx.updateTable('markets').set({ state: marketStateOf(record), updated_at: now }).where('chain_id', '=', deps.chainId).where('address', '=', market).execute();
}
