/**
 * The reputation fold (docs/reputation.md "How it is kept"): one pass reads the facts after each cursor, adds them to
 * the wallets' records (all time, per UTC day, per collateral), moves wallets whose identity changed to their new
 * subject, recomputes the tier of every subject it touched, and writes the audit trail and the cursors, all in one
 * transaction. A pass that finds its cursors moved by another (a second process, a concurrent call) writes nothing,
 * so a fact counts once. Work per pass is the new facts and the subjects they touch, never the whole history.
 */
import { sql, type Insertable, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { standingsOf } from '../../core/reputation/standing.ts';
import { isIdentityKey, subjectIdOf, subjectValueOf, type SubjectKey } from '../../core/reputation/subject.ts';
import { EMPTY_RECORD, nextTier, reputationTierRank, type ReputationRecord, type ReputationTier, type TierReason } from '../../core/reputation/tiers.ts';
import type { DB } from '../../db/schema.ts';
import { jsonRows } from '../../db/unnest.ts';
import type { ReputationDeps } from './deps.ts';
import { attestationChanges, COUNTERS, fillFacts, outboxFacts, START, tradeFacts, type Counter, type Cursors, type CursorSource, type Fact, type InputReason } from './facts.ts';
import { currentSubjectKeys } from './subjects.ts';

/** Lock key of a fold's transaction (pg_advisory_xact_lock): one fold writes at a time across processes. */
export const REPUTATION_FOLD_LOCK = 0x5e9a71;

export interface FoldResult {
  /** Facts applied. */
  facts: number;
  /** Subjects whose tier changed. */
  tierChanges: number;
  /** True when a source had a full batch: call again. */
  more: boolean;
}

interface Move {
  wallet: string;
  from: SubjectKey;
  to: SubjectKey;
}

/** One pass. */
export async function foldOnce(deps: ReputationDeps): Promise<FoldResult> {
  const { db } = deps;
  const limit = deps.batchSize ?? 1000;
  const before = await readCursors(db);
  const [outbox, trades, fills, humans] = await Promise.all([
    outboxFacts(deps, before.outbox, limit),
    tradeFacts(deps, before.trades, limit),
    fillFacts(deps, before.fills, limit),
    attestationChanges(deps, before.humans),
  ]);
  const facts = [...outbox.items, ...groupTrades([...trades.items, ...fills.items])];
  const after: Cursors = { outbox: outbox.position, trades: trades.position, fills: fills.position, humans: humans.position };
  const moves = await membershipMoves(db);
  const factWallets = [...new Set([...facts.map((f) => f.wallet), ...humans.items])];
  const keyOf = await currentSubjectKeys(db, factWallets);
  const touched = new Set<SubjectKey>([...keyOf.values(), ...moves.flatMap((m) => [m.from, m.to])]);
  const changed = (Object.keys(after) as CursorSource[]).some((s) => after[s] !== before[s]);
  const more = outbox.full || trades.full || fills.full;
  if (touched.size === 0 && !changed) return { facts: 0, tierChanges: 0, more: false };
  // Attestations are read before the transaction: the verifier reads with its own connection.
  const human = await humanFlags(deps, [...touched]);
  const now = deps.clock.now();
  const tierChanges = await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${REPUTATION_FOLD_LOCK})`.execute(trx);
    const current = await readCursors(trx);
    if ((Object.keys(before) as CursorSource[]).some((s) => current[s] !== before[s])) return null; // another fold ran
    const causes = new Map<SubjectKey, string>();
    const oldTiers = await storedTiers(trx, [...touched]);
    await applyMoves(trx, moves, now, causes);
    await applyFacts(trx, facts, keyOf, now, causes);
    for (const w of humans.items) {
      await trx.insertInto('reputation_wallets').values({ wallet: w, subject_key: keyOf.get(w)!, updated_at: now }).onConflict((oc) => oc.column('wallet').doNothing()).execute();
    }
    const n = await refoldSubjects(
      trx,
      [...touched].map((key) => ({
        key,
        human: human.get(key) ?? { verified: false, wallet: null },
        inherited: inheritedTier(key, moves, oldTiers),
        formed: moves.some((m) => m.to === key),
        cause: causes.get(key) ?? null,
        now,
      })),
    );
    await writeCursors(trx, after, now);
    return n;
  });
  if (tierChanges === null) return { facts: 0, tierChanges: 0, more: true };
  return { facts: facts.length, tierChanges, more };
}

/** Passes until every source is read to its head; answers the facts applied. */
export async function foldUntilCaughtUp(deps: ReputationDeps): Promise<number> {
  let total = 0;
  for (let i = 0; i < 1000; i++) {
    const r = await foldOnce(deps);
    total += r.facts;
    if (!r.more) break;
  }
  return total;
}

async function readCursors(db: Kysely<DB>): Promise<Cursors> {
  const rows = await db.selectFrom('reputation_cursors').select(['source', 'position']).execute();
  const cursors: Cursors = { ...START };
  for (const r of rows) if (r.source in cursors) cursors[r.source as CursorSource] = r.position;
  return cursors;
}

async function writeCursors(trx: Transaction<DB>, cursors: Cursors, now: Date): Promise<void> {
  for (const [source, position] of Object.entries(cursors)) {
    await trx
      .insertInto('reputation_cursors')
      .values({ source, position, updated_at: now })
      .onConflict((oc) => oc.column('source').doUpdateSet({ position, updated_at: now }))
      .execute();
  }
}

/** Trades and fills grouped per wallet, market and UTC day: one input event each. */
function groupTrades(facts: readonly Fact[]): Fact[] {
  const groups = new Map<string, Fact>();
  for (const f of facts) {
    const id = `${f.wallet}|${f.market}|${f.volume?.symbol}|${dayOf(f.at)}`;
    const g = groups.get(id);
    if (!g) {
      groups.set(id, { ...f, delta: { ...f.delta }, volume: f.volume && { ...f.volume } });
      continue;
    }
    g.delta.trades = (g.delta.trades ?? 0n) + (f.delta.trades ?? 0n);
    g.delta.volumeMicros = (g.delta.volumeMicros ?? 0n) + (f.delta.volumeMicros ?? 0n);
    if (g.volume && f.volume) g.volume = { ...g.volume, trades: g.volume.trades + f.volume.trades, amount: g.volume.amount + f.volume.amount };
    g.at = f.at > g.at ? f.at : g.at;
    g.source = f.source;
  }
  return [...groups.values()];
}

const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** Wallets whose recorded subject is not the one their identity membership makes now. */
async function membershipMoves(db: Kysely<DB>): Promise<Move[]> {
  const rows = await db
    .selectFrom('reputation_wallets as rw')
    .leftJoin('identity_members as im', 'im.wallet_address', 'rw.wallet')
    .select(['rw.wallet', 'rw.subject_key', sql<string>`COALESCE('identity:' || im.identity_id::text, 'wallet:' || rw.wallet)`.as('now_key')])
    .where(sql<boolean>`rw.subject_key <> COALESCE('identity:' || im.identity_id::text, 'wallet:' || rw.wallet)`)
    .execute();
  return rows.map((r) => ({ wallet: r.wallet, from: r.subject_key as SubjectKey, to: r.now_key as SubjectKey }));
}

async function storedTiers(trx: Transaction<DB>, keys: readonly SubjectKey[]): Promise<Map<string, ReputationTier>> {
  if (keys.length === 0) return new Map();
  const rows = await trx.selectFrom('reputation_subjects').select(['subject_key', 'tier']).where('subject_key', 'in', [...keys]).execute();
  return new Map(rows.map((r) => [r.subject_key, r.tier]));
}

/**
 * Where a subject's tier starts from: its own, else the highest of the subjects its wallets came from; a wallet
 * coming from a restricted subject brings the restriction along (linking or unlinking never lifts it).
 */
function inheritedTier(key: SubjectKey, moves: readonly Move[], old: ReadonlyMap<string, ReputationTier>): ReputationTier {
  const from = moves.filter((m) => m.to === key).map((m) => old.get(m.from) ?? 'new');
  if (from.includes('restricted')) return 'restricted';
  const own = old.get(key);
  if (own) return own;
  return from.reduce<ReputationTier>((a, b) => (reputationTierRank(b) > reputationTierRank(a) ? b : a), 'new');
}

async function applyMoves(trx: Transaction<DB>, moves: readonly Move[], now: Date, causes: Map<SubjectKey, string>): Promise<void> {
  for (const m of moves) {
    await trx.updateTable('reputation_wallets').set({ subject_key: m.to, updated_at: now }).where('wallet', '=', m.wallet).execute();
    const linked = isIdentityKey(m.to);
    await insertEvents(trx, [
      {
      subject_key: m.to,
      wallet: m.wallet,
      kind: 'input',
      reason: linked ? 'IDENTITY_LINKED' : 'IDENTITY_UNLINKED',
      change: { fromSubjectId: subjectIdOf(m.from), toSubjectId: subjectIdOf(m.to) },
      source: 'identity',
      occurred_at: now,
      recorded_at: now,
      },
    ]);
    causes.set(m.to, m.wallet);
    causes.set(m.from, m.wallet);
  }
}

/** Adds each wallet's facts to its records (one upsert per wallet, day and collateral) and logs each fact. */
async function applyFacts(trx: Transaction<DB>, facts: readonly Fact[], keyOf: ReadonlyMap<string, SubjectKey>, now: Date, causes: Map<SubjectKey, string>): Promise<void> {
  const perWallet = new Map<string, Partial<Record<Counter, bigint>>>();
  const perDay = new Map<string, Partial<Record<Counter, bigint>>>();
  const perVolume = new Map<string, { trades: bigint; amount: bigint }>();
  const add = (into: Map<string, Partial<Record<Counter, bigint>>>, id: string, delta: Partial<Record<Counter, bigint>>) => {
    const sum = into.get(id) ?? {};
    for (const [c, v] of Object.entries(delta) as [Counter, bigint][]) sum[c] = (sum[c] ?? 0n) + v;
    into.set(id, sum);
  };
  for (const f of facts) {
    add(perWallet, f.wallet, f.delta);
    add(perDay, `${f.wallet}|${dayOf(f.at)}`, f.delta);
    if (f.volume) {
      const id = `${f.wallet}|${f.volume.symbol}`;
      const v = perVolume.get(id) ?? { trades: 0n, amount: 0n };
      perVolume.set(id, { trades: v.trades + f.volume.trades, amount: v.amount + f.volume.amount });
    }
  }
  // One upsert per table for every wallet of the pass: each row carries every counter (0 where the facts moved none).
  // Rows as one jsonb array (src/db/unnest.ts jsonRows): one statement text whatever their number, kept prepared.
  const counters = Object.values(COUNTERS);
  if (perWallet.size > 0) {
    const rows = [...perWallet].map(([wallet, delta]) => ({ wallet, subject_key: keyOf.get(wallet)!, ...allColumnsOf(delta), updated_at: now }));
    await upsert(trx, 'reputation_wallets', ['wallet', 'subject_key', ...counters, 'updated_at'], rows, ['wallet'], [...increments('reputation_wallets', counters), sql`updated_at = excluded.updated_at`]);
  }
  if (perDay.size > 0) {
    const rows = [...perDay].map(([id, delta]) => ({ wallet: id.split('|')[0]!, day: id.split('|')[1]!, ...allColumnsOf(delta) }));
    await upsert(trx, 'reputation_wallet_days', ['wallet', 'day', ...counters], rows, ['wallet', 'day'], increments('reputation_wallet_days', counters));
  }
  if (perVolume.size > 0) {
    const rows = [...perVolume].map(([id, v]) => ({ wallet: id.split('|')[0]!, symbol: id.split('|')[1]!, trades: v.trades.toString(), volume: v.amount.toString() }));
    await upsert(trx, 'reputation_wallet_volumes', ['wallet', 'symbol', 'trades', 'volume'], rows, ['wallet', 'symbol'], increments('reputation_wallet_volumes', ['trades', 'volume']));
  }
  await insertEvents(
    trx,
    facts.map((f) => ({
      subject_key: keyOf.get(f.wallet)!,
      wallet: f.wallet,
      kind: 'input' as const,
      reason: f.reason,
      change: changeOf(f),
      chain_id: f.chainId,
      market: f.market,
      source: f.source,
      occurred_at: f.at,
      recorded_at: now,
    })),
  );
  for (const f of facts) causes.set(keyOf.get(f.wallet)!, f.wallet);
}

/** `INSERT INTO table (columns) … ON CONFLICT (conflict) DO UPDATE SET …` of `rows` (jsonRows: one statement text). */
async function upsert(trx: Transaction<DB>, table: string, columns: readonly string[], rows: readonly object[], conflict: readonly string[], set: readonly RawBuilder<unknown>[]): Promise<void> {
  const list = sql.join(columns.map((c) => sql.ref(c)));
  await sql`INSERT INTO ${sql.table(table)} (${list}) SELECT ${list} FROM ${jsonRows(table, rows)}
    ON CONFLICT (${sql.join(conflict.map((c) => sql.ref(c)))}) DO UPDATE SET ${sql.join(set)}`.execute(trx);
}

/** `column = table.column + excluded.column` for each column: the upsert adds the row's values to the stored ones. */
const increments = (table: string, columns: readonly string[]): RawBuilder<unknown>[] => columns.map((c) => sql`${sql.ref(c)} = ${sql.ref(`${table}.${c}`)} + excluded.${sql.ref(c)}`);

/** What an input event shows of its fact: the counts it moved (volume also in the collateral's own units). */
function changeOf(f: Fact): Record<string, unknown> {
  const change: Record<string, unknown> = {};
  for (const [c, v] of Object.entries(f.delta) as [Counter, bigint][]) change[c] = c === 'volumeMicros' ? v.toString() : Number(v);
  if (f.volume) change.collateral = { symbol: f.volume.symbol, volume: f.volume.amount.toString() };
  return change;
}

const columnValue = (c: Counter, v: bigint): string | number => (c === 'volumeMicros' || c === 'trades' ? v.toString() : Number(v));

/** Every counter's column, 0 where the delta has none. */
const allColumnsOf = (delta: Partial<Record<Counter, bigint>>) => Object.fromEntries((Object.keys(COUNTERS) as Counter[]).map((c) => [COUNTERS[c], columnValue(c, delta[c] ?? 0n)]));

type EventInsert = {
  subject_key: string;
  wallet: string | null;
  kind: 'input' | 'tier';
  reason: string;
  change: Record<string, unknown>;
  tier_from?: string | null;
  tier_to?: string | null;
  chain_id?: number | null;
  market?: string | null;
  source: string | null;
  occurred_at: Date;
  recorded_at: Date;
};

const EVENT_COLUMNS = ['subject_key', 'wallet', 'kind', 'reason', 'change', 'tier_from', 'tier_to', 'chain_id', 'market', 'source', 'occurred_at', 'recorded_at'];

async function insertEvents(trx: Transaction<DB>, events: readonly EventInsert[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => ({ ...e, tier_from: e.tier_from ?? null, tier_to: e.tier_to ?? null, chain_id: e.chain_id ?? null, market: e.market ?? null }));
  const list = sql.join(EVENT_COLUMNS.map((c) => sql.ref(c)));
  await sql`INSERT INTO reputation_events (${list}) SELECT ${list} FROM ${jsonRows('reputation_events', rows)}`.execute(trx);
}

/** The record of each subject now: the sum of its wallets' records (those counted under its key); absent: no wallet. */
async function subjectRecords(trx: Transaction<DB>, keys: readonly SubjectKey[]): Promise<Map<string, Omit<ReputationRecord, 'humanVerified'>>> {
  const sum = (c: string) => sql<string>`COALESCE(SUM(${sql.ref(c)}), 0)::text`.as(c);
  const rows = await trx
    .selectFrom('reputation_wallets')
    .select(['subject_key', ...Object.values(COUNTERS).map(sum)])
    .where('subject_key', 'in', [...keys])
    .groupBy('subject_key')
    .execute();
  return new Map(
    rows.map((row) => {
      const r = row as unknown as Record<string, string>;
      const n = (c: Counter) => Number(r[COUNTERS[c]]);
      const record = {
        trades: n('trades'),
        volumeMicros: BigInt(r.volume_micros!),
        marketsCreated: n('marketsCreated'),
        resolvedClean: n('resolvedClean'),
        disputesLost: n('disputesLost'),
        creatorAbsences: n('creatorAbsences'),
        challengesUpheld: n('challengesUpheld'),
        challengesLost: n('challengesLost'),
        ballotsAgreed: n('ballotsAgreed'),
        ballotsDisagreed: n('ballotsDisagreed'),
      };
      return [row.subject_key, record];
    }),
  );
}

interface Refold {
  key: SubjectKey;
  human: { verified: boolean; wallet: string | null };
  inherited: ReputationTier;
  /** Wallets moved into the subject in this pass. */
  formed: boolean;
  /** The wallet whose input touched the subject last in this pass (the tier event names it). */
  cause: string | null;
  now: Date;
}

/**
 * Recomputes the touched subjects' tiers from their records, in a few statements for all of them; answers how many
 * tiers changed. A subject's events keep their order (its human flag's, then its tier's).
 */
async function refoldSubjects(trx: Transaction<DB>, subjects: readonly Refold[]): Promise<number> {
  if (subjects.length === 0) return 0;
  const keys = subjects.map((p) => p.key);
  const records = await subjectRecords(trx, keys);
  const storedRows = await trx.selectFrom('reputation_subjects').select(['subject_key', 'tier', 'human_verified', 'tier_since']).where('subject_key', 'in', keys).execute();
  const stored = new Map(storedRows.map((r) => [r.subject_key, r]));
  const ended: SubjectKey[] = [];
  const rows: Insertable<DB['reputation_subjects']>[] = [];
  const events: EventInsert[] = [];
  let changes = 0;
  for (const p of subjects) {
    const { key, now } = p;
    const counts = records.get(key);
    const before = stored.get(key);
    if (!counts) {
      // Every wallet moved to another subject: this one ended (its trail stays with the wallets).
      ended.push(key);
      continue;
    }
    const record: ReputationRecord = { ...EMPTY_RECORD, ...counts, humanVerified: p.human.verified };
    const wasVerified = before?.human_verified ?? false;
    if (wasVerified !== p.human.verified) {
      events.push({
        subject_key: key,
        wallet: p.human.wallet ?? p.cause,
        kind: 'input',
        reason: p.human.verified ? 'HUMAN_VERIFIED' : ('HUMAN_VERIFICATION_REVOKED' satisfies InputReason),
        change: { humanVerified: p.human.verified },
        source: 'attestation',
        occurred_at: now,
        recorded_at: now,
      });
    }
    // A subject met for the first time starts new, unless wallets moved into it (linking, unlinking): then it starts
    // from the tier they bring, and its first tier event comes from nowhere (tier_from null).
    const previous = before?.tier ?? null;
    const step = nextTier(previous ?? p.inherited, record);
    const from = previous ?? (p.formed ? null : 'new');
    const changed = step.tier !== (from ?? 'new');
    const s = standingsOf(record);
    rows.push({
      subject_key: key,
      tier: step.tier,
      tier_rank: reputationTierRank(step.tier),
      tier_since: changed || !before ? now : before.tier_since,
      human_verified: record.humanVerified,
      ...Object.fromEntries((Object.keys(COUNTERS) as Counter[]).map((c) => [COUNTERS[c], columnValue(c, BigInt(record[c]))])),
      creator_standing: s.creator.toString(),
      juror_standing: s.juror.toString(),
      trader_standing: s.trader.toString(),
      overall_standing: s.overall.toString(),
      updated_at: now,
    });
    if (!changed) continue;
    changes++;
    events.push({
      subject_key: key,
      wallet: p.cause ?? p.human.wallet,
      kind: 'tier',
      reason: step.reason ?? ('SUBJECT_FORMED' satisfies TierReason),
      change: {},
      tier_from: from,
      tier_to: step.tier,
      source: null,
      occurred_at: now,
      recorded_at: now,
    });
  }
  if (ended.length > 0) await trx.deleteFrom('reputation_subjects').where('subject_key', 'in', ended).execute();
  if (rows.length > 0) {
    const columns = Object.keys(rows[0]!);
    await upsert(trx, 'reputation_subjects', columns, rows, ['subject_key'], columns.filter((c) => c !== 'subject_key').map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`));
  }
  await insertEvents(trx, events);
  return changes;
}

/**
 * The verified-human flag of each subject now (the attestation of any of its wallets), and the attested wallet: a few
 * statements for all of them (a fold touches every subject that traded; one voterOf each was ~2-4 statements apiece).
 */
async function humanFlags(deps: ReputationDeps, keys: readonly SubjectKey[]): Promise<Map<SubjectKey, { verified: boolean; wallet: string | null }>> {
  const identities = keys.filter(isIdentityKey).map(subjectValueOf);
  // An identity speaks through its first wallet (any of its wallets answers the same).
  const firstWallets =
    identities.length > 0
      ? await deps.db.selectFrom('identity_members').select(['identity_id', sql<string>`min(wallet_address)`.as('wallet')]).where('identity_id', 'in', identities).groupBy('identity_id').execute()
      : [];
  const firstOf = new Map(firstWallets.map((r) => [r.identity_id, r.wallet]));
  const walletOf = (key: SubjectKey): string | undefined => (isIdentityKey(key) ? firstOf.get(subjectValueOf(key)) : subjectValueOf(key));
  const voters = await deps.humans.votersOf(keys.flatMap((k) => walletOf(k) ?? []));
  const flags = new Map<SubjectKey, { verified: boolean; wallet: string | null }>();
  for (const key of keys) {
    const wallet = walletOf(key);
    const voter = wallet === undefined ? undefined : voters.get(wallet.toLowerCase());
    // A wallet that has since joined an identity speaks for that identity, not for this (ending) subject.
    flags.set(key, voter && voter.identityKey === key ? { verified: voter.attestation !== null, wallet: voter.attestation?.wallet ?? null } : { verified: false, wallet: null });
  }
  return flags;
}
