/**
 * The facts a reputation record is made of, read through the fold's cursors from where the service already keeps
 * them (docs/reputation.md "Inputs"):
 * - the events outbox (gap-free `seq`, committed in order): market.live (a market created), market.cancelled
 *   (its creation reorged away), market.resolved (the creator's clean resolution, lost dispute or absence, the
 *   challenger's upheld or lost challenge, read from the market's resolution record), market.voteClosed with a
 *   binding verdict (each counted ballot agrees with the verdict or not);
 * - the indexer's LMSR trades (`market_trades`, by block and log index, written with the indexer's cursor);
 * - the ledger's order-book fills (`order_fills`, by ledger sequence, which ledger writes take under one lock);
 * - human attestations (`human_verifications`, by time, re-read over a short overlap: the flag is idempotent).
 * Each reader answers its facts and the position after them; nothing is written here.
 */
import { sql, type Kysely } from 'kysely';
import { fillCostOf } from '../../core/orderbook/engine.ts';
import type { MatchKind } from '../../core/ledger/types.ts';
import { faceValueMicros } from '../../core/reputation/tiers.ts';
import { parseVoteSessionId } from '../../core/resolution/votes.ts';
import type { DB } from '../../db/schema.ts';
import type { ReputationDeps } from './deps.ts';

/** The record counts a fact may move (a subset of ReputationRecord, human verification aside). */
export const COUNTERS = {
  trades: 'trades',
  volumeMicros: 'volume_micros',
  marketsCreated: 'markets_created',
  resolvedClean: 'resolved_clean',
  disputesLost: 'disputes_lost',
  creatorAbsences: 'creator_absences',
  challengesUpheld: 'challenges_upheld',
  challengesLost: 'challenges_lost',
  ballotsAgreed: 'ballots_agreed',
  ballotsDisagreed: 'ballots_disagreed',
} as const;
export type Counter = keyof typeof COUNTERS;

/** Why a wallet's record moved (reputation events, kind input). */
export type InputReason =
  | 'TRADES'
  | 'MARKET_CREATED'
  | 'MARKET_CANCELLED'
  | 'RESOLVED_CLEAN'
  | 'DISPUTE_LOST'
  | 'CREATOR_ABSENT'
  | 'CHALLENGE_UPHELD'
  | 'CHALLENGE_LOST'
  | 'BALLOT_AGREED'
  | 'BALLOT_DISAGREED'
  | 'HUMAN_VERIFIED'
  | 'HUMAN_VERIFICATION_REVOKED'
  | 'IDENTITY_LINKED'
  | 'IDENTITY_UNLINKED';

export const INPUT_REASONS: readonly InputReason[] = [
  'TRADES',
  'MARKET_CREATED',
  'MARKET_CANCELLED',
  'RESOLVED_CLEAN',
  'DISPUTE_LOST',
  'CREATOR_ABSENT',
  'CHALLENGE_UPHELD',
  'CHALLENGE_LOST',
  'BALLOT_AGREED',
  'BALLOT_DISAGREED',
  'HUMAN_VERIFIED',
  'HUMAN_VERIFICATION_REVOKED',
  'IDENTITY_LINKED',
  'IDENTITY_UNLINKED',
];

/** One fact about one wallet. */
export interface Fact {
  /** Lowercase. */
  wallet: string;
  at: Date;
  reason: InputReason;
  delta: Partial<Record<Counter, bigint>>;
  /** Trades and volume in the collateral's own base units (the profile's track record). */
  volume?: { symbol: string; trades: bigint; amount: bigint };
  chainId: number | null;
  market: string | null;
  source: string;
}

export type CursorSource = 'outbox' | 'trades' | 'fills' | 'humans';
export type Cursors = Record<CursorSource, string>;
export const START: Cursors = { outbox: '0', trades: '0:0', fills: '0', humans: new Date(0).toISOString() };

/** Attestations changed within this long before the cursor are read again (a late commit is not missed). */
const HUMAN_OVERLAP_MS = 5_000;

const FOLDED_EVENTS = ['market.live', 'market.cancelled', 'market.resolved', 'market.voteClosed'] as const;

interface Read<T> {
  items: T;
  position: string;
  /** A full batch was read: more may follow. */
  full: boolean;
}

/** Outbox events after `after`, up to the batch size: the market and vote facts they announce. */
export async function outboxFacts(deps: ReputationDeps, after: string, limit: number): Promise<Read<Fact[]>> {
  const { db } = deps;
  const top = await db.selectFrom('events').select(sql<string | null>`max(seq)`.as('top')).executeTakeFirstOrThrow();
  const head = top.top === null ? after : String(top.top);
  const rows = await db
    .selectFrom('events')
    .select(['seq', 'type', 'chain_id', 'market_address', 'payload', 'created_at'])
    .where('seq', '>', after)
    .where('seq', '<=', head)
    .where('type', 'in', [...FOLDED_EVENTS])
    .orderBy('seq')
    .limit(limit)
    .execute();
  const facts: Fact[] = [];
  for (const row of rows) facts.push(...(await factsOfEvent(db, row)));
  // A full page stops at its last row; otherwise everything up to the head was read (other kinds included).
  return { items: facts, position: rows.length === limit ? String(rows[rows.length - 1]!.seq) : head, full: rows.length === limit };
}

type EventRow = { seq: string; type: string; chain_id: number | null; market_address: string | null; payload: unknown; created_at: Date };

async function factsOfEvent(db: Kysely<DB>, e: EventRow): Promise<Fact[]> {
  const market = e.market_address?.toLowerCase() ?? null;
  if (market === null || e.chain_id === null) return [];
  const payload = (e.payload ?? {}) as Record<string, unknown>;
  const base = { at: e.created_at, chainId: e.chain_id, market, source: `event:${e.seq}` };
  const creatorOf = async () => (await db.selectFrom('markets').select('creator').where('chain_id', '=', e.chain_id!).where('address', '=', market).executeTakeFirst())?.creator.toLowerCase();
  switch (e.type) {
    case 'market.live': {
      const creator = typeof payload.creatorAddress === 'string' ? payload.creatorAddress.toLowerCase() : await creatorOf();
      return creator ? [{ ...base, wallet: creator, reason: 'MARKET_CREATED', delta: { marketsCreated: 1n } }] : [];
    }
    case 'market.cancelled': {
      // A creation the chain no longer has is no market created; a relocation re-registers under its new address.
      if (payload.reason !== 'CREATION_REORGED') return [];
      const creator = await creatorOf();
      return creator ? [{ ...base, wallet: creator, reason: 'MARKET_CANCELLED', delta: { marketsCreated: -1n } }] : [];
    }
    case 'market.resolved':
      return resolutionFacts(db, e.chain_id, market, base);
    case 'market.voteClosed':
      return payload.verdictKind === 'binding' && typeof payload.sessionId === 'string' && typeof payload.outcome === 'number'
        ? ballotFacts(db, payload.sessionId, payload.outcome, base)
        : [];
    default:
      return [];
  }
}

type Base = Pick<Fact, 'at' | 'chainId' | 'market' | 'source'>;

/** The creator's and the challenger's bonded outcome of a resolved market, from its folded resolution record. */
async function resolutionFacts(db: Kysely<DB>, chainId: number, market: string, base: Base): Promise<Fact[]> {
  const row = await db
    .selectFrom('markets')
    .leftJoin('market_resolutions', (j) => j.onRef('market_resolutions.chain_id', '=', 'markets.chain_id').onRef('market_resolutions.market', '=', 'markets.address'))
    .select(['markets.creator', 'market_resolutions.record'])
    .where('markets.chain_id', '=', chainId)
    .where('markets.address', '=', market)
    .executeTakeFirst();
  if (!row) return [];
  const record = (row.record ?? {}) as { creatorSlashed?: boolean | null; challenger?: string | null };
  const creator = row.creator.toLowerCase();
  const challenger = typeof record.challenger === 'string' ? record.challenger.toLowerCase() : null;
  const facts: Fact[] = [];
  if (record.creatorSlashed) {
    facts.push(challenger ? { ...base, wallet: creator, reason: 'DISPUTE_LOST', delta: { disputesLost: 1n } } : { ...base, wallet: creator, reason: 'CREATOR_ABSENT', delta: { creatorAbsences: 1n } });
    if (challenger) facts.push({ ...base, wallet: challenger, reason: 'CHALLENGE_UPHELD', delta: { challengesUpheld: 1n } });
  } else {
    facts.push({ ...base, wallet: creator, reason: 'RESOLVED_CLEAN', delta: { resolvedClean: 1n } });
    if (challenger) facts.push({ ...base, wallet: challenger, reason: 'CHALLENGE_LOST', delta: { challengesLost: 1n } });
  }
  return facts;
}

/** Every counted ballot of a round with a binding verdict (ballots are refused once the round is counted). */
async function ballotFacts(db: Kysely<DB>, sessionId: string, verdictOutcome: number, base: Base): Promise<Fact[]> {
  const session = parseVoteSessionId(sessionId);
  if (!session) return [];
  const ballots = await db
    .selectFrom('vote_ballots')
    .select(['wallet_address', 'outcome'])
    .where('chain_id', '=', session.chainId)
    .where('market', '=', session.market.toLowerCase())
    .where('round', '=', session.round)
    .orderBy('wallet_address')
    .execute();
  return ballots.map((b) =>
    b.outcome === verdictOutcome
      ? { ...base, wallet: b.wallet_address.toLowerCase(), reason: 'BALLOT_AGREED', delta: { ballotsAgreed: 1n } }
      : { ...base, wallet: b.wallet_address.toLowerCase(), reason: 'BALLOT_DISAGREED', delta: { ballotsDisagreed: 1n } },
  );
}

/** LMSR trades after `after` (`block:log`), one fact per trade (the fold groups them per wallet and market). */
export async function tradeFacts(deps: ReputationDeps, after: string, limit: number): Promise<Read<Fact[]>> {
  const [block, log] = after.split(':').map((x) => BigInt(x)) as [bigint, bigint];
  const rows = await deps.db
    .selectFrom('market_trades as t')
    .innerJoin('markets as m', (j) => j.onRef('m.chain_id', '=', 't.chain_id').onRef('m.address', '=', 't.market'))
    .select(['t.tx_hash', 't.log_index', 't.block_number', 't.block_time', 't.market', 't.trader', 't.cost', 'm.collateral_symbol'])
    .where('t.chain_id', '=', deps.chainId)
    .where(sql<boolean>`(t.block_number, t.log_index) > (${block.toString()}::bigint, ${Number(log)})`)
    .orderBy('t.block_number')
    .orderBy('t.log_index')
    .limit(limit)
    .execute();
  const facts = rows.map((t): Fact => {
    const amount = BigInt(t.cost);
    return {
      wallet: t.trader.toLowerCase(),
      at: t.block_time,
      reason: 'TRADES',
      delta: { trades: 1n, volumeMicros: faceValueMicros(amount, deps.decimalsOf(t.collateral_symbol)) },
      volume: { symbol: t.collateral_symbol, trades: 1n, amount },
      chainId: deps.chainId,
      market: t.market.toLowerCase(),
      source: `trade:${t.tx_hash}:${t.log_index}`,
    };
  });
  const last = rows[rows.length - 1];
  return { items: facts, position: last ? `${last.block_number}:${last.log_index}` : after, full: rows.length === limit };
}

/** Order-book fills after ledger sequence `after`: one fact for the maker and one for the taker of each. */
export async function fillFacts(deps: ReputationDeps, after: string, limit: number): Promise<Read<Fact[]>> {
  const rows = await deps.db
    .selectFrom('order_fills')
    .select(['id', 'ledger_seq', 'market', 'maker', 'taker', 'kind', 'price_bps', 'shares', 'created_at'])
    .where(sql<boolean>`ledger_seq > ${after}::bigint`)
    .orderBy(sql`ledger_seq`)
    .limit(limit)
    .execute();
  const decimals = deps.decimalsOf('PLAY');
  const facts = rows.flatMap((f): Fact[] => {
    const amount = fillCostOf(f.kind as MatchKind, f.price_bps, BigInt(f.shares));
    const fact = (wallet: string): Fact => ({
      wallet: wallet.toLowerCase(),
      at: f.created_at,
      reason: 'TRADES',
      delta: { trades: 1n, volumeMicros: faceValueMicros(amount, decimals) },
      volume: { symbol: 'PLAY', trades: 1n, amount },
      chainId: deps.chainId,
      market: f.market.toLowerCase(),
      source: `fill:${f.id}`,
    });
    return f.maker.toLowerCase() === f.taker.toLowerCase() ? [fact(f.maker)] : [fact(f.maker), fact(f.taker)];
  });
  const last = rows[rows.length - 1];
  return { items: facts, position: last ? String(last.ledger_seq) : after, full: rows.length === limit };
}

/** Wallets whose attestation was made or withdrawn since `after` (ISO time), less the overlap. */
export async function attestationChanges(deps: ReputationDeps, after: string): Promise<Read<string[]>> {
  const since = new Date(Date.parse(after) - HUMAN_OVERLAP_MS);
  const rows = await deps.db
    .selectFrom('human_verifications')
    .select(['wallet_address', 'verified_at', 'revoked_at'])
    .where((eb) => eb.or([eb('verified_at', '>', since), eb('revoked_at', '>', since)]))
    .execute();
  let latest = Date.parse(after);
  for (const r of rows) latest = Math.max(latest, r.verified_at.getTime(), r.revoked_at?.getTime() ?? 0);
  return { items: rows.map((r) => r.wallet_address.toLowerCase()), position: new Date(latest).toISOString(), full: false };
}
