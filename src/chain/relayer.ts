/**
 * The relayer sends operator transactions with its own nonce tracking and is crash-safe:
 * a transaction is signed and written to `relayer_transactions` (state prepared, raw bytes kept)
 * before it is broadcast, so after a crash at any point `resume()` rebroadcasts the very same
 * signed bytes — same nonce, same hash — instead of sending a second transaction.
 * States: prepared → submitted → confirmed | reverted, or dropped when the nonce was consumed by
 * another transaction. One relayer per operator account (see docs/chain.md).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { keccak256, type Address, type Hex, type PublicClient, type TransactionReceipt } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import type { Clock } from '../core/clock.ts';
import type { DB } from '../db/schema.ts';
import type { Logger } from '../core/logger.ts';
import { gasWithHeadroom } from './gas.ts';

/** Namespace of the per-address nonce lock (pg_advisory_xact_lock(namespace, hashtext(address))). */
const RELAYER_NONCE_LOCK = 0x5c10;

export type RelayState = 'prepared' | 'submitted' | 'confirmed' | 'reverted' | 'dropped';

export interface RelayRequest {
  /** Our name for the operation (e.g. deploy:8453:ParticipationToken); unique. */
  operationId: string;
  /** Caller's retry key; the same key never sends twice. */
  idempotencyKey: string;
  /** null deploys a contract. */
  to: Address | null;
  data: Hex;
  value?: bigint;
  gas?: bigint;
}

export interface RelayedTx {
  operationId: string;
  idempotencyKey: string;
  chainId: number;
  from: Address;
  nonce: number;
  txHash: Hex;
  state: RelayState;
  submittedAt: Date | null;
  blockNumber: bigint | null;
  blockHash: Hex | null;
  contractAddress: Address | null;
}

/** Test hooks that simulate a crash at a given point. */
export interface RelayerFaults {
  beforeBroadcast?: (tx: RelayedTx) => void;
  afterBroadcast?: (tx: RelayedTx) => void;
}

export interface Relayer {
  readonly address: Address;
  /** Signs, records, broadcasts; returns once submitted (not mined). Idempotent by idempotencyKey. */
  submit(req: RelayRequest): Promise<RelayedTx>;
  /** submit() then wait for the receipt. */
  send(req: RelayRequest): Promise<RelayedTx>;
  waitFor(operationId: string): Promise<RelayedTx>;
  get(operationId: string): Promise<RelayedTx | undefined>;
  findByHash(hash: Hex): Promise<RelayedTx | undefined>;
  /**
   * After a restart: rebroadcast what was prepared or submitted, settle what was mined, and rebroadcast what we
   * recorded as mined but the chain no longer holds (its nonce is past the chain's), so the chain again holds every
   * transaction the database says it does.
   */
  resume(): Promise<RelayedTx[]>;
}


/** How far below the head a mined transaction's block is checked again for a reorganisation, in blocks past the depth. */
const RECHECK_WINDOW_BLOCKS = 64n;

export function createRelayer(deps: {
  db: Kysely<DB>;
  client: PublicClient;
  account: LocalAccount;
  chainId: number;
  clock: Clock;
  log: Logger;
  /** Blocks a receipt's block needs (itself included) before the transaction counts as mined; default 1. */
  confirmations?: number;
  faults?: RelayerFaults;
}): Relayer {
  const { db, client, account, chainId, clock, log } = deps;
  const confirmations = deps.confirmations ?? 1;
  let queue: Promise<unknown> = Promise.resolve();
  // Nonce allocation and recording are serialised so two sends never share a nonce.
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };

  const toTx = (r: Record<string, unknown>): RelayedTx => ({
    operationId: r.operation_id as string,
    idempotencyKey: r.idempotency_key as string,
    chainId: r.chain_id as number,
    from: r.from_address as Address,
    nonce: Number(r.nonce),
    txHash: r.tx_hash as Hex,
    state: r.state as RelayState,
    submittedAt: (r.submitted_at as Date | null) ?? null,
    blockNumber: r.block_number === null ? null : BigInt(r.block_number as string),
    blockHash: (r.block_hash as Hex | null) ?? null,
    contractAddress: (r.contract_address as Address | null) ?? null,
  });

  const byKey = async (idempotencyKey: string) =>
    db.selectFrom('relayer_transactions').selectAll().where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
  const get = async (operationId: string) => {
    const row = await db.selectFrom('relayer_transactions').selectAll().where('operation_id', '=', operationId).executeTakeFirst();
    return row ? toTx(row) : undefined;
  };

  /** The next nonce: past both the chain's pending count and every nonce recorded (read under the nonce lock). */
  const nextNonce = async (trx: Transaction<DB>): Promise<number> => {
    const onChain = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
    const row = await trx
      .selectFrom('relayer_transactions')
      .select((eb) => eb.fn.max('nonce').as('max'))
      .where('chain_id', '=', chainId)
      .where('from_address', '=', account.address.toLowerCase())
      .where('state', '!=', 'dropped')
      .executeTakeFirst();
    const recorded = row?.max === null || row?.max === undefined ? -1 : Number(row.max);
    return Math.max(onChain, recorded + 1);
  };

  const prepare = async (req: RelayRequest): Promise<RelayedTx> => {
    const value = req.value ?? 0n;
    const to = req.to ?? undefined;
    const gas = req.gas ?? gasWithHeadroom(await client.estimateGas({ account: account.address, to, data: req.data, value }));
    const fees = await client.estimateFeesPerGas();
    // The nonce is chosen and recorded under a transaction-level lock of the sending address: several processes of
    // one deployment (docs/operations.md) relay with one operator key without two of them picking the same nonce.
    return db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${RELAYER_NONCE_LOCK}, hashtext(${account.address.toLowerCase()}))`.execute(trx);
      const nonce = await nextNonce(trx);
      const raw = await account.signTransaction({
        chainId,
        type: 'eip1559',
        nonce,
        to,
        data: req.data,
        value,
        gas,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      const now = clock.now();
      const row = await trx
        .insertInto('relayer_transactions')
        .values({
          operation_id: req.operationId,
          idempotency_key: req.idempotencyKey,
          chain_id: chainId,
          from_address: account.address.toLowerCase(),
          nonce: String(nonce),
          to_address: req.to?.toLowerCase() ?? null,
          data: req.data,
          value: value.toString(),
          gas: gas.toString(),
          max_fee_per_gas: fees.maxFeePerGas.toString(),
          max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(),
          raw_tx: raw,
          tx_hash: keccak256(raw),
          state: 'prepared',
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toTx(row);
    });
  };

  const broadcast = async (tx: RelayedTx): Promise<RelayedTx> => {
    const row = await db.selectFrom('relayer_transactions').select('raw_tx').where('operation_id', '=', tx.operationId).executeTakeFirstOrThrow();
    deps.faults?.beforeBroadcast?.(tx);
    try {
      await client.sendRawTransaction({ serializedTransaction: row.raw_tx as Hex });
    } catch (err) {
      // Already in the pool or already mined: the same bytes were sent before a crash. Anything else is real.
      const known = await client.getTransaction({ hash: tx.txHash }).catch(() => undefined);
      if (!known) throw err;
    }
    const now = clock.now();
    const updated = await db
      .updateTable('relayer_transactions')
      .set({ state: 'submitted', submitted_at: tx.submittedAt ?? now, updated_at: now })
      .where('operation_id', '=', tx.operationId)
      .where('state', 'in', ['prepared', 'submitted'])
      .returningAll()
      .executeTakeFirstOrThrow();
    const out = toTx(updated);
    deps.faults?.afterBroadcast?.(out);
    return out;
  };

  const settle = async (tx: RelayedTx, receipt: TransactionReceipt): Promise<RelayedTx> => {
    const updated = await db
      .updateTable('relayer_transactions')
      .set({
        state: receipt.status === 'success' ? 'confirmed' : 'reverted',
        block_number: receipt.blockNumber.toString(),
        block_hash: receipt.blockHash,
        contract_address: receipt.contractAddress?.toLowerCase() ?? null,
        updated_at: clock.now(),
      })
      .where('operation_id', '=', tx.operationId)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toTx(updated);
  };

  const submit = (req: RelayRequest): Promise<RelayedTx> =>
    serial(async () => {
      const existing = await byKey(req.idempotencyKey);
      if (existing) {
        const tx = toTx(existing);
        const sameRequest =
          existing.operation_id === req.operationId &&
          existing.data === req.data &&
          existing.to_address === (req.to?.toLowerCase() ?? null) &&
          existing.value === (req.value ?? 0n).toString();
        if (!sameRequest) {
          throw new Error(`relayer: idempotency key ${req.idempotencyKey} was used for a different operation`);
        }
        return tx.state === 'prepared' ? broadcast(tx) : tx;
      }
      return broadcast(await prepare(req));
    });

  const waitFor = async (operationId: string): Promise<RelayedTx> => {
    const tx = await get(operationId);
    if (!tx) throw new Error(`relayer: no operation ${operationId}`);
    if (tx.state === 'confirmed' || tx.state === 'reverted' || tx.state === 'dropped') return tx;
    // The depth counts the receipt's own block; viem waits until the head is that deep and re-reads the receipt.
    const receipt = await client.waitForTransactionReceipt({ hash: tx.txHash, confirmations, pollingInterval: 100, timeout: 120_000 });
    return settle(tx, receipt);
  };

  /**
   * The chain is the authority: a transaction we recorded as mined (confirmed or reverted) whose nonce the chain has
   * not reached was lost with its block (a node restarted from an older state, a reorg). It goes back to submitted,
   * so resume() rebroadcasts its very same signed bytes, in nonce order, and settles it from the new receipt.
   */
  const reopenLost = async (): Promise<void> => {
    const mined = await client.getTransactionCount({ address: account.address, blockTag: 'latest' });
    const lost = await db
      .updateTable('relayer_transactions')
      .set({ state: 'submitted', block_number: null, block_hash: null, updated_at: clock.now() })
      .where('chain_id', '=', chainId)
      .where('from_address', '=', account.address.toLowerCase())
      .where('state', 'in', ['confirmed', 'reverted'])
      .where('nonce', '>=', String(mined))
      .returning(['operation_id', 'nonce'])
      .execute();
    for (const tx of lost) log.warn({ operationId: tx.operation_id, nonce: Number(tx.nonce), chainNonce: mined }, 'relayer: the chain lost a mined transaction; rebroadcasting its signed bytes');
    await recheckRecent();
  };

  /**
   * A transaction mined in the last blocks may have moved to another block in a reorganisation (the same nonce, so
   * reopenLost cannot see it): its recorded block hash is compared with the chain's, and a moved one is settled
   * again from its new receipt, or reopened when no block holds it any more.
   */
  const recheckRecent = async (): Promise<void> => {
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const since = head - BigInt(confirmations) - RECHECK_WINDOW_BLOCKS;
    const recent = await db
      .selectFrom('relayer_transactions')
      .selectAll()
      .where('chain_id', '=', chainId)
      .where('from_address', '=', account.address.toLowerCase())
      .where('state', 'in', ['confirmed', 'reverted'])
      .where('block_number', '>=', String(since < 0n ? 0n : since))
      .execute();
    for (const row of recent) {
      const block = await client.getBlock({ blockNumber: BigInt(row.block_number!) }).catch(() => null);
      if (block?.hash === row.block_hash) continue;
      const tx = toTx(row);
      const receipt = await client.getTransactionReceipt({ hash: tx.txHash }).catch(() => undefined);
      log.warn({ operationId: tx.operationId, was: row.block_hash, now: receipt?.blockHash ?? null }, 'relayer: a mined transaction left its block in a reorganisation');
      if (receipt) await settle(tx, receipt);
      else await db.updateTable('relayer_transactions').set({ state: 'submitted', block_number: null, block_hash: null, updated_at: clock.now() }).where('operation_id', '=', tx.operationId).execute();
    }
  };

  /** Whether a receipt's block is as deep as the confirmation depth asks. */
  const deepEnough = async (receipt: TransactionReceipt): Promise<boolean> =>
    confirmations <= 1 || (await client.getBlockNumber({ cacheTime: 0 })) - receipt.blockNumber + 1n >= BigInt(confirmations);

  return {
    address: account.address,
    submit,
    async send(req) {
      const tx = await submit(req);
      return waitFor(tx.operationId);
    },
    waitFor,
    get,
    async findByHash(hash) {
      const row = await db.selectFrom('relayer_transactions').selectAll().where('tx_hash', '=', hash.toLowerCase()).executeTakeFirst();
      return row ? toTx(row) : undefined;
    },
    async resume() {
      await reopenLost();
      const open = await db
        .selectFrom('relayer_transactions')
        .selectAll()
        .where('chain_id', '=', chainId)
        .where('from_address', '=', account.address.toLowerCase())
        .where('state', 'in', ['prepared', 'submitted'])
        .orderBy('nonce')
        .execute();
      const settled: RelayedTx[] = [];
      for (const row of open) {
        let tx = toTx(row);
        const receipt = await client.getTransactionReceipt({ hash: tx.txHash }).catch(() => undefined);
        if (receipt) {
          settled.push(await ((await deepEnough(receipt)) ? settle(tx, receipt) : waitFor(tx.operationId)));
          continue;
        }
        const mined = await client.getTransactionCount({ address: account.address, blockTag: 'latest' });
        if (mined > tx.nonce) {
          // Ours may have been mined between the two reads: look again before calling it dropped.
          const late = await client.getTransactionReceipt({ hash: tx.txHash }).catch(() => undefined);
          if (late) {
            settled.push(await settle(tx, late));
            continue;
          }
          // The nonce went to another transaction: ours can never be mined.
          await db.updateTable('relayer_transactions').set({ state: 'dropped', updated_at: clock.now() }).where('operation_id', '=', tx.operationId).execute();
          log.warn({ operationId: tx.operationId, nonce: tx.nonce }, 'relayer: transaction dropped (nonce consumed elsewhere)');
          settled.push({ ...tx, state: 'dropped' });
          continue;
        }
        log.info({ operationId: tx.operationId, nonce: tx.nonce, state: tx.state }, 'relayer: rebroadcasting after restart');
        tx = await serial(() => broadcast(tx));
        settled.push(await waitFor(tx.operationId));
      }
      return settled;
    },
  };
}

