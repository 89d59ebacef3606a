/**
 * The ledger batcher: closes a batch of appended operations by size or age, computes the new Merkle
 * root, commits it through the relayer (legacy commitBatch with transfer events, or journal
 * commitJournalBatch with a PMJ5 payload) and, once the receipt is in, moves the committed balances
 * and the proof tree forward. One batch is in flight at a time.
 *
 * Crash safety (docs/ledger.md "Batcher"): closing a batch is one transaction (batch row with its
 * exact calldata and the range of seqs it holds, batch-range.ts); sending goes through the relayer under the
 * fixed operation id ledger:<chain>:<contract>:batch:<nonce>, which never sends twice and settles
 * after a restart; confirming is one transaction. A crash between any two of these resumes at the
 * next step with the same nonce and the same bytes.
 */
import type { Kysely } from 'kysely';
import { encodeFunctionData, type Address, type Hex, type PublicClient } from 'viem';
import type { Clock } from '../../core/clock.ts';
import { LedgerBalances } from '../../core/ledger/engine.ts';
import { encodeJournal, journalPayloadHash, nextJournalCommitment } from '../../core/ledger/journal.ts';
import { LedgerMerkleTree } from '../../core/ledger/merkle.ts';
import { SUPPLY_ACCOUNT, type Account, type BalanceEntry, type LedgerOperation } from '../../core/ledger/types.ts';
import { loadArtifact } from '../../chain/artifacts.ts';
import type { Relayer } from '../../chain/relayer.ts';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../db/index.ts';
import type { Logger } from '../../core/logger.ts';
import { allBalances, balanceKey, balanceKeysOfAll, readBalances, rowToOp, writeBalanceSteps } from './rows.ts';
import { runSteps } from '../../db/pipeline.ts';
import { lastBatchedSeq, waitingOperations } from './batch-range.ts';
import { treeApplied, treeBuilt } from './tree-turns.ts';

export const ZERO_HASH: Hex = `0x${'00'.repeat(32)}`;
export type LedgerMode = 'legacy' | 'journal';

/** Test hooks that simulate a crash at a point of a batch's life. */
export interface LedgerFaults {
  /** The batch is closed (row and calldata stored), nothing sent yet. */
  beforeSend?: (nonce: bigint) => void;
  /** The receipt is in, the confirmation not yet written. */
  afterReceipt?: (nonce: bigint) => void;
}

export interface LedgerCommitted {
  nonce: bigint;
  root: Hex;
  journalCommitment: Hex;
  txHash: Hex | null;
  blockNumber: bigint | null;
  confirmedAt: Date | null;
}

export interface BatchOutcome {
  nonce: bigint;
  opCount: number;
  root: Hex;
  txHash: Hex;
}

export interface LedgerBatcher {
  readonly contract: Address;
  readonly chainId: number;
  readonly mode: LedgerMode;
  /** Loads the committed state, finishes a batch a previous run left in flight, starts the timer. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Closes a batch when one is due (or `force` and any operation waits), commits it, and waits for it. Throws before
   * start() has loaded the committed tree; answers null after stop().
   */
  flush(opts?: { force?: boolean }): Promise<BatchOutcome | null>;
  /**
   * What the timer runs each tick: batch after batch while each was full (maxOps operations), so the commitments keep
   * up with the writes however fast they come; the rest waits until its batch is due. One run at a time (a call while
   * one runs answers that run's outcomes).
   */
  catchUp(): Promise<BatchOutcome[]>;
  /**
   * The chain is the authority: compares the contract's batch nonce and root with the last confirmed batch, and sends
   * again (with their stored calldata, under new relayer operations) the confirmed batches the contract does not
   * hold. Returns what it did, one line each. A contract that holds something else leaves the batcher halted.
   */
  reconcile(): Promise<string[]>;
  /** Why batches are not being committed (the contract disagrees with the database), or null. */
  halted(): string | null;
  /** The last batch accepted on chain. */
  committed(): LedgerCommitted;
  /**
   * Whether the committed tree is loaded: from the end of start()'s build (in turns, tree-turns.ts) until stop(). Before
   * that, committed() and proof() answer the empty ledger, or what an earlier start left.
   */
  loaded(): boolean;
  /** Every committed non-zero balance of an account with its proof against committed().root. */
  proof(account: Account): { assetId: bigint; balance: bigint; leaf: Hex; proof: Hex[] }[];
}

export interface LedgerBatcherDeps {
  db: Kysely<DB>;
  client: PublicClient;
  relayer: Relayer;
  clock: Clock;
  log: Logger;
  chainId: number;
  contract: Address;
  feeAccount: Account;
  mode: LedgerMode;
  maxOps: number;
  intervalMs: number;
  /** Whether the chain can take a batch now (the node is up and reconciled); the timer waits while it cannot. */
  chainLive?: () => boolean;
  faults?: LedgerFaults;
}

interface BatchRow {
  nonce: bigint;
  calldata: Hex;
  firstSeq: string;
  lastSeq: string;
  opCount: number;
  newRoot: Hex;
}

export function createLedgerBatcher(deps: LedgerBatcherDeps): LedgerBatcher {
  const { db, relayer, clock, log, chainId, contract, feeAccount, mode } = deps;
  const abi = loadArtifact('LedgerCommitment').abi;
  let tree = LedgerMerkleTree.fromBalances([]);
  let committed: LedgerCommitted = { nonce: 0n, root: ZERO_HASH, journalCommitment: ZERO_HASH, txHash: null, blockNumber: null, confirmedAt: null };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;
  let halt: string | null = null;
  let loaded = false;
  const operationId = (nonce: bigint) => `ledger:${chainId}:${contract.toLowerCase()}:batch:${nonce}`;
  const userEntries = (entries: readonly BalanceEntry[]) => entries.filter((e) => e.account !== SUPPLY_ACCOUNT);

  const opsOf = async (first: string, last: string): Promise<LedgerOperation[]> =>
    (await db.selectFrom('ledger_operations').select(['kind', 'op']).where('seq', '>=', first).where('seq', '<=', last).orderBy('seq').execute()).map(rowToOp);

  /**
   * The absolute balances the operations leave, starting from the committed balances: each touched key once, in the
   * order first touched; with the keys of the committed rows there were (balanceKey), which the commit updates in place.
   */
  const changesOf = async (executor: Executor, ops: readonly LedgerOperation[]): Promise<{ changes: BalanceEntry[]; stored: Set<string> }> => {
    const keys = balanceKeysOfAll(ops, feeAccount);
    const read = await readBalances(executor, 'ledger_committed_balances', keys);
    const ledger = new LedgerBalances(read);
    // Replayed in their accepted order, so no check can fail here that passed when they were written.
    for (const op of ops) ledger.apply(op, feeAccount);
    return { changes: keys.map((k) => ({ ...k, balance: ledger.get(k.account, k.assetId) })), stored: new Set(read.map(balanceKey)) };
  };

  /**
   * The tree a closed batch leaves once it is committed, made when it closes (a copy of the committed tree with its
   * changes applied) and taken as it is when that batch is confirmed. Applying the batch to the tree and back, then
   * once more at the commit, hashed every touched path three times (a new leaf rebuilds every level above it) on the
   * process's thread: 300 changes took ~23 ms on 700 leaves, ~90 ms on 100,000 (now 4 and 32, the copy included).
   * A batch that adds or removes leaves rehashes every node above the leaves after them (~60 ms for 5 new leaves among
   * 20,000), so the hashing runs in steps with turns of the event loop between them (tree-turns.ts).
   */
  let prepared: { nonce: bigint; tree: LedgerMerkleTree } | null = null;
  const treeWith = (changes: readonly BalanceEntry[]): Promise<LedgerMerkleTree> => treeApplied(tree, userEntries(changes));

  /**
   * The operations the next batch takes: the oldest waiting, read without the ledger lock. Every ledger writer takes
   * that lock before it reserves its seqs and holds it until it commits (ledger.ts), so a writer in flight holds seqs
   * above every committed one, and whatever a read sees is a prefix of the operations there will ever be after the last
   * batch (a rolled-back writer's seqs are a gap no one fills). Until session 29 this read took the lock, in a
   * transaction of four round trips with the read of up to LEDGER_BATCH_MAX_OPS operations, and every order batch
   * with fills waited for it meanwhile (docs/orderbook.md, session 29).
   */
  const due = async (force: boolean) => {
    const open = await db.selectFrom('ledger_batches').selectAll().where('status', '=', 'closed').executeTakeFirst();
    if (open) return { open: toBatch(open), pending: [] };
    const pending = await waitingOperations(db).select(['seq', 'kind', 'op', 'created_at']).limit(deps.maxOps).execute();
    if (pending.length === 0) return null;
    const oldest = pending[0]!.created_at.getTime();
    if (!force && pending.length < deps.maxOps && clock.now().getTime() - oldest < deps.intervalMs) return null;
    return { open: null, pending };
  };

  /**
   * Closes the next batch when one is due (the one left closed, if any): made from the operations `due` read, then
   * written in one transaction: the batch row with its calldata and its range of seqs, which is what says the operations
   * are in it (batch-range.ts). Only the batcher writes batches (one at a time, in the elected process); a batch whose
   * operations another one took meanwhile writes nothing and fails.
   */
  const close = async (force: boolean): Promise<BatchRow | null> => {
    const found = await due(force);
    if (!found) return null;
    if (found.open) return found.open;
    const { pending } = found;
    const nonce = committed.nonce + 1n;
    const ops = pending.map(rowToOp);
    const next = await treeWith((await changesOf(db, ops)).changes);
    const newRoot = next.root();
    let calldata: Hex;
    let payloadHash: Hex | null = null;
    let journalCommitment = committed.journalCommitment;
    if (mode === 'journal') {
      const payload = encodeJournal({ nonce, operations: ops.map((op) => (op.type === 'credit' ? { type: 'credit', credit: op.credit } : { type: 'match', match: op.match })) });
      payloadHash = journalPayloadHash(payload);
      journalCommitment = nextJournalCommitment(committed.journalCommitment, nonce, payloadHash);
      calldata = encodeFunctionData({
        abi,
        functionName: 'commitJournalBatch',
        args: [nonce, committed.root, newRoot, committed.journalCommitment, payloadHash, bytesToHex(payload)],
      });
    } else {
      calldata = encodeFunctionData({
        abi,
        functionName: 'commitBatch',
        args: [
          nonce,
          committed.root,
          newRoot,
          ops.flatMap((op) => (op.type === 'match' ? [op.match] : [])),
          ops.flatMap((op) => (op.type === 'credit' ? [op.credit] : [])),
          true,
        ],
      });
    }
    const first = String(pending[0]!.seq);
    const last = String(pending[pending.length - 1]!.seq);
    const closed = await db.transaction().execute(async (trx) => {
      // The range is the batch's only mark on its operations (batch-range.ts): it must start after every batch's.
      const { last_seq: before } = await trx.selectNoFrom(lastBatchedSeq().as('last_seq')).executeTakeFirstOrThrow();
      if (BigInt(before) >= BigInt(first)) throw new Error(`ledger: batch ${nonce} starts at seq ${first}, but a batch already holds seq ${before}; another batch took its operations meanwhile`);
      await trx
        .insertInto('ledger_batches')
        .values({
          nonce: nonce.toString(),
          chain_id: chainId,
          contract: contract.toLowerCase(),
          mode,
          first_seq: first,
          last_seq: last,
          op_count: pending.length,
          prev_root: committed.root,
          new_root: newRoot,
          prev_journal_commitment: committed.journalCommitment,
          journal_commitment: journalCommitment,
          payload_hash: payloadHash,
          calldata,
          status: 'closed',
          closed_at: clock.now(),
        })
        .execute();
      log.info({ nonce: nonce.toString(), ops: pending.length, mode }, 'ledger: batch closed');
      return { nonce, calldata, firstSeq: first, lastSeq: last, opCount: pending.length, newRoot };
    });
    prepared = { nonce, tree: next };
    return closed;
  };

  const commit = async (batch: BatchRow): Promise<BatchOutcome> => {
    deps.faults?.beforeSend?.(batch.nonce);
    const id = operationId(batch.nonce);
    const tx = await relayer.send({ operationId: id, idempotencyKey: id, to: contract, data: batch.calldata });
    if (tx.state !== 'confirmed') {
      // A revert is only acceptable when the chain already holds this very batch (sent by an earlier run).
      const [chainNonce, chainRoot] = await Promise.all([readView('batchNonce') as Promise<bigint>, readView('ledgerRoot') as Promise<Hex>]);
      if (!(chainNonce === batch.nonce && chainRoot.toLowerCase() === batch.newRoot.toLowerCase())) {
        throw new Error(`ledger batch ${batch.nonce} was not accepted on chain (${tx.state}, tx ${tx.txHash}); chain batchNonce ${chainNonce}, ledgerRoot ${chainRoot}`);
      }
    }
    deps.faults?.afterReceipt?.(batch.nonce);
    const { changes, stored } = await changesOf(db, await opsOf(batch.firstSeq, batch.lastSeq));
    const confirmedAt = clock.now();
    const row = await db.transaction().execute(async (trx) => {
      // Only the batcher writes these rows, one batch at a time: the ones read are there (an update finding fewer fails
      // the commit, and so does an insert of a row someone else made; the next tick tries again).
      await runSteps(trx, writeBalanceSteps(trx, 'ledger_committed_balances', changes, stored));
      return trx
        .updateTable('ledger_batches')
        .set({ status: 'confirmed', tx_hash: tx.txHash, block_number: tx.blockNumber?.toString() ?? null, confirmed_at: confirmedAt })
        .where('nonce', '=', batch.nonce.toString())
        .where('status', '=', 'closed')
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    // The tree made when the batch closed, if this process closed it (else, after a restart, the changes applied now).
    if (prepared?.nonce === batch.nonce && prepared.tree.root() === batch.newRoot) tree = prepared.tree;
    else tree = await treeWith(changes);
    prepared = null;
    committed = { nonce: batch.nonce, root: tree.root(), journalCommitment: row.journal_commitment as Hex, txHash: tx.txHash, blockNumber: tx.blockNumber, confirmedAt };
    if (committed.root !== batch.newRoot) log.error({ nonce: batch.nonce.toString(), tree: committed.root, batch: batch.newRoot }, 'ledger: committed tree differs from the batch root');
    log.info({ nonce: batch.nonce.toString(), ops: batch.opCount, tx: tx.txHash }, 'ledger: batch committed on chain');
    return { nonce: batch.nonce, opCount: batch.opCount, root: batch.newRoot, txHash: tx.txHash };
  };

  const readView = (functionName: 'batchNonce' | 'ledgerRoot' | 'journalCommitment') => deps.client.readContract({ address: contract, abi, functionName });

  /** One step on the batch at a time (a flush, a reconciliation); a caller arriving meanwhile waits for it, then runs. */
  const oneAtATime = <T>(step: () => Promise<T>): Promise<T> => {
    const previous = running ?? Promise.resolve(null);
    const next = previous.catch(() => null).then(step);
    running = next;
    return next.finally(() => {
      if (running === next) running = null;
    });
  };

  const flush = (opts: { force?: boolean } = {}): Promise<BatchOutcome | null> =>
    oneAtATime(async () => {
      // A batch closed before start() has built the committed tree would hash its changes into the empty one (or the
      // last run's), and its root would not be the ledger's. After stop() nothing is closed.
      if (!loaded) {
        if (stopped) return null;
        throw new Error('ledger: the committed tree is not loaded: start() has not finished building it');
      }
      if (halt) throw new Error(`ledger: batches are halted: ${halt}`);
      const batch = await close(opts.force === true);
      return batch ? commit(batch) : null;
    });

  // Until stop(): a catch-up ends there, between two batches.
  let stopped = false;
  let catching: Promise<BatchOutcome[]> | null = null;
  // Each start() is a run and stop() ends it: a start still loading when a stop comes (a leader deposed while it was
  // being elected) marks nothing loaded and leaves no timer behind.
  let runs = 0;
  const catchUp = (): Promise<BatchOutcome[]> => {
    catching ??= (async () => {
      const done: BatchOutcome[] = [];
      try {
        // One batch a tick kept up with LEDGER_BATCH_MAX_OPS operations per tick at most (256 in 5 s by default), and
        // an order flow of hundreds of fills a second left the commitments ever further behind.
        while (!stopped && !halt && (!deps.chainLive || deps.chainLive())) {
          const outcome = await flush();
          if (outcome) done.push(outcome);
          if (!outcome || outcome.opCount < deps.maxOps) break;
        }
        return done;
      } finally {
        catching = null;
      }
    })();
    return catching;
  };

  const reconcile = (): Promise<string[]> =>
    oneAtATime(async () => {
      const chainNonce = (await readView('batchNonce')) as bigint;
      if (chainNonce > committed.nonce) {
        // A closed batch the chain took is confirmed by start(); more than that means this database is not the chain's.
        const open = await db.selectFrom('ledger_batches').select('nonce').where('status', '=', 'closed').executeTakeFirst();
        if (open && BigInt(open.nonce) === chainNonce) return [];
        return [haltWith(`the contract holds batch ${chainNonce}, this database's last confirmed batch is ${committed.nonce}`)];
      }
      const done: string[] = [];
      for (let nonce = chainNonce + 1n; nonce <= committed.nonce; nonce++) done.push(await sendAgain(nonce));
      const chainRoot = ((await readView('ledgerRoot')) as Hex).toLowerCase();
      if (chainRoot !== committed.root.toLowerCase() && committed.nonce > 0n) {
        return [...done, haltWith(`the contract's root ${chainRoot} at batch ${committed.nonce} is not this database's ${committed.root}`)];
      }
      if (halt) log.warn({ was: halt }, 'ledger: the contract agrees with the database again; batches resume');
      halt = null;
      return done;
    });

  /** A confirmed batch the contract lost (its relayer transaction could not be put back): the same calldata, sent anew. */
  const sendAgain = async (nonce: bigint): Promise<string> => {
    const row = await db.selectFrom('ledger_batches').selectAll().where('nonce', '=', nonce.toString()).executeTakeFirstOrThrow();
    let attempt = 1;
    while (await relayer.get(`${operationId(nonce)}:again:${attempt}`)) attempt += 1;
    const id = `${operationId(nonce)}:again:${attempt}`;
    const tx = await relayer.send({ operationId: id, idempotencyKey: id, to: contract, data: row.calldata as Hex });
    if (tx.state !== 'confirmed') throw new Error(`ledger: batch ${nonce} sent again was not accepted (${tx.state}, tx ${tx.txHash})`);
    await db.updateTable('ledger_batches').set({ tx_hash: tx.txHash, block_number: tx.blockNumber?.toString() ?? null }).where('nonce', '=', nonce.toString()).execute();
    if (nonce === committed.nonce) committed = { ...committed, txHash: tx.txHash, blockNumber: tx.blockNumber };
    log.warn({ nonce: nonce.toString(), tx: tx.txHash }, 'ledger: the contract had lost a confirmed batch; sent its calldata again');
    return `ledger: batch ${nonce} was not on chain; sent again in ${tx.txHash}`;
  };

  const haltWith = (reason: string): string => {
    halt = reason;
    log.error({ reason }, 'ledger: the contract disagrees with the database; no batch is committed until an operator resolves it (docs/ledger.md "Reconciliation")');
    return `ledger: halted: ${reason}`;
  };

  /** One start's work; `ended()` turns true once a stop (or another start) ends it, and then it leaves off. */
  async function startRun(ended: () => boolean): Promise<void> {
    const last = await db.selectFrom('ledger_batches').selectAll().where('status', '=', 'confirmed').orderBy('nonce', 'desc').limit(1).executeTakeFirst();
    // In turns: a process elected while it serves requests builds it (tree-turns.ts).
    const built = await treeBuilt(userEntries(await allBalances(db, 'ledger_committed_balances')), undefined, ended);
    if (!built || ended()) return;
    tree = built;
    if (last) {
      committed = {
        nonce: BigInt(last.nonce),
        root: tree.root(),
        journalCommitment: last.journal_commitment as Hex,
        txHash: last.tx_hash as Hex,
        blockNumber: last.block_number === null ? null : BigInt(last.block_number),
        confirmedAt: last.confirmed_at,
      };
      if (committed.root !== last.new_root) throw new Error(`ledger: committed balances give root ${committed.root}, batch ${last.nonce} committed ${last.new_root}`);
    }
    loaded = true;
    // The chain first (it may have lost batches the relayer could not put back), then the batch left in flight.
    for (const line of await reconcile()) log.warn(line);
    if (ended()) return;
    const open = await db.selectFrom('ledger_batches').selectAll().where('status', '=', 'closed').executeTakeFirst();
    if (ended()) return;
    if (open && !halt) {
      log.info({ nonce: open.nonce }, 'ledger: finishing the batch a previous run left in flight');
      await oneAtATime(() => commit(toBatch(open)));
    }
    if (ended()) return;
    stopped = false;
    timer = setInterval(() => {
      // While the node is down or being reconciled a batch would only fail (or run ahead of a lost one it re-sends).
      // Halted, it waits for a reconciliation that finds the contract agreeing (the reason was logged once). A tick
      // while the last one still catches up leaves it to that one.
      if (catching || halt || (deps.chainLive && !deps.chainLive())) return;
      catchUp().catch((err: unknown) => log.error({ err }, 'ledger: batch failed; retrying on the next tick'));
    }, Math.max(250, Math.min(deps.intervalMs, 5_000)));
    timer.unref();
  }

  return {
    contract,
    chainId,
    mode,
    async start() {
      const run = ++runs;
      const ended = () => run !== runs;
      try {
        await startRun(ended);
      } catch (err) {
        if (!ended()) loaded = false;
        throw err;
      }
    },
    async stop() {
      runs++;
      stopped = true;
      loaded = false;
      if (timer) clearInterval(timer);
      timer = undefined;
      await catching?.catch(() => undefined);
      await running?.catch(() => undefined);
    },
    flush,
    catchUp,
    reconcile,
    halted: () => halt,
    committed: () => committed,
    loaded: () => loaded,
    proof(account) {
      const lower = account.toLowerCase() as Account;
      return tree.entriesOf(lower).map((e) => ({ assetId: e.assetId, balance: e.balance, leaf: tree.leafOf(e.account, e.assetId)!, proof: tree.proof(e.account, e.assetId)! }));
    },
  };
}

function toBatch(r: { nonce: string; calldata: string; first_seq: string; last_seq: string; op_count: number; new_root: string }): BatchRow {
  return { nonce: BigInt(r.nonce), calldata: r.calldata as Hex, firstSeq: String(r.first_seq), lastSeq: String(r.last_seq), opCount: r.op_count, newRoot: r.new_root as Hex };
}

const bytesToHex = (bytes: Uint8Array): Hex => `0x${Buffer.from(bytes).toString('hex')}`;
