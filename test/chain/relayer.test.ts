// The relayer's crash safety against a real anvil and a real database (PGlite in memory, or a fresh
// PostgreSQL database when DATABASE_URL is set). A crash is simulated by a fault hook that throws;
// the crashed relayer instance is then discarded and a new one is built over the same database.
import type { Kysely } from 'kysely';
import { createPublicClient, createWalletClient, custom, http, keccak256, parseEther, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { chainDefinition, createChainClient } from '../../src/chain/clients.ts';
import { createRelayer, type RelayedTx, type RelayerFaults, type RelayRequest } from '../../src/chain/relayer.ts';
import { systemClock } from '../../src/core/clock.ts';
import { migrateToLatest, openDatabase, type Database, type DB } from '../../src/db/index.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createChainService } from '../../src/services/chain/chain-service.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { migratedPGlite } from '../support/pglite-template.ts';
import { rpc as rpcAt } from '../support/anvil-rpc.ts';
import { waitFor } from '../support/wait.ts';

const CHAIN_ID = 8453;
const SINK: Address = '0x000000000000000000000000000000000000dEaD';
const log = createLogger('silent');

class SimulatedCrash extends Error {
  override name = 'SimulatedCrash';
}

let anvil: AnvilHandle;
let client: PublicClient;
let database: Database;
let db: Kysely<DB>;
let pgUrl: string | undefined;
const chain = () => chainDefinition(CHAIN_ID, 'anvil', anvil.rpcUrl);

// Each test uses its own funded account (funded in beforeAll), so nonces never interfere across tests.
const ACCOUNTS = Array.from({ length: 16 }, () => privateKeyToAccount(generatePrivateKey()));
let nextAccount = 0;
const freshAccount = (): PrivateKeyAccount => {
  const account = ACCOUNTS[nextAccount++];
  if (!account) throw new Error('out of funded test accounts');
  return account;
};

const relayerFor = (account: PrivateKeyAccount, faults?: RelayerFaults) =>
  createRelayer({ db, client, account, chainId: CHAIN_ID, clock: systemClock, log, faults });

const crashAt = (point: keyof RelayerFaults, seen?: RelayedTx[]): RelayerFaults => ({
  [point]: (tx: RelayedTx) => {
    seen?.push(tx);
    throw new SimulatedCrash(`simulated crash ${point}`);
  },
});

let seq = 0;
const request = (overrides: Partial<RelayRequest> = {}): RelayRequest => {
  seq += 1;
  return { operationId: `test:relayer:${seq}`, idempotencyKey: `relayer-${seq}`, to: SINK, data: '0x', value: BigInt(seq), ...overrides };
};

const rpc = (method: string, params: unknown[] = []): Promise<unknown> => rpcAt(anvil.rpcUrl, method, params);

const minedNonce = (address: Address) => client.getTransactionCount({ address, blockTag: 'latest' });
const pendingNonce = (address: Address) => client.getTransactionCount({ address, blockTag: 'pending' });
const row = (operationId: string) => db.selectFrom('relayer_transactions').selectAll().where('operation_id', '=', operationId).executeTakeFirstOrThrow();
const rowCount = async (address: Address) =>
  (await db.selectFrom('relayer_transactions').select('operation_id').where('from_address', '=', address.toLowerCase()).execute()).length;
const poolSize = async () => {
  const status = (await rpc('txpool_status')) as { pending: string; queued: string };
  return Number(status.pending) + Number(status.queued);
};

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  client = createChainClient(chain(), anvil.rpcUrl);
  pgUrl = onPostgres ? await freshPostgresUrl() : undefined;
  database = pgUrl ? await openDatabase({ databaseUrl: pgUrl }) : await migratedPGlite();
  db = database.db;
  await migrateToLatest(db);
  for (const account of ACCOUNTS) await rpc('anvil_setBalance', [account.address, '0x3635c9adc5dea00000']); // 1000 ETH
});

afterAll(async () => {
  await rpc('evm_setAutomine', [true]).catch(() => undefined);
  await database?.close();
  if (pgUrl) await dropPostgres(pgUrl);
  await anvil?.stop();
});

describe(`relayer crash safety (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('crash before broadcast: nothing reaches the chain; a new relayer resumes the same signed bytes, mined once', async () => {
    const account = freshAccount();
    const before = await minedNonce(account.address);
    const req = request();

    const seen: RelayedTx[] = [];
    const crashed = relayerFor(account, crashAt('beforeBroadcast', seen));
    await expect(crashed.send(req)).rejects.toThrow(SimulatedCrash);

    const prepared = await row(req.operationId);
    expect(prepared.state).toBe('prepared');
    expect(prepared.raw_tx).toMatch(/^0x[0-9a-f]+$/);
    expect(prepared.tx_hash).toBe(keccak256(prepared.raw_tx as Hex));
    expect(prepared.tx_hash).toBe(seen[0]!.txHash);
    expect(Number(prepared.nonce)).toBe(before);
    expect(prepared.submitted_at).toBeNull();
    expect(await minedNonce(account.address)).toBe(before);
    expect(await pendingNonce(account.address)).toBe(before);
    await expect(client.getTransaction({ hash: prepared.tx_hash as Hex })).rejects.toThrow();

    const restarted = relayerFor(account);
    const settled = await restarted.resume();
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ operationId: req.operationId, txHash: prepared.tx_hash, nonce: before, state: 'confirmed' });

    const receipt = await client.getTransactionReceipt({ hash: prepared.tx_hash as Hex });
    expect(receipt.status).toBe('success');
    const mined = await client.getTransaction({ hash: prepared.tx_hash as Hex });
    expect(mined.nonce).toBe(before);
    expect(await minedNonce(account.address)).toBe(before + 1);
    const done = await row(req.operationId);
    expect(done).toMatchObject({ state: 'confirmed', tx_hash: prepared.tx_hash, raw_tx: prepared.raw_tx, block_hash: receipt.blockHash });
    expect(String(done.block_number)).toBe(receipt.blockNumber.toString());
    expect(done.submitted_at).toBeInstanceOf(Date);

    // A second resume has nothing left to do; a retry of the same request returns the settled transaction.
    expect(await restarted.resume()).toEqual([]);
    expect((await restarted.send(req)).txHash).toBe(prepared.tx_hash);
    expect(await minedNonce(account.address)).toBe(before + 1);
  });

  it('crash after broadcast, before the receipt: resume rebroadcasts the same bytes and settles without a second transaction', async () => {
    const account = freshAccount();
    const before = await minedNonce(account.address);
    const req = request();
    await rpc('evm_setAutomine', [false]);
    try {
      const crashed = relayerFor(account, crashAt('afterBroadcast'));
      await expect(crashed.send(req)).rejects.toThrow(SimulatedCrash);

      const submitted = await row(req.operationId);
      expect(submitted.state).toBe('submitted');
      expect(submitted.submitted_at).toBeInstanceOf(Date);
      const hash = submitted.tx_hash as Hex;
      expect((await client.getTransaction({ hash })).blockNumber).toBeNull(); // in the pool, not mined
      expect(await minedNonce(account.address)).toBe(before);
      expect(await pendingNonce(account.address)).toBe(before + 1);

      // The new relayer's afterBroadcast hook only observes: mine once it has rebroadcast.
      const rebroadcast: RelayedTx[] = [];
      const restarted = relayerFor(account, { afterBroadcast: (tx) => void rebroadcast.push(tx) });
      const resuming = restarted.resume();
      await waitFor(() => rebroadcast.length > 0, { what: 'the restarted relayer to rebroadcast the submitted transaction' });
      expect(rebroadcast.map((t) => t.txHash)).toEqual([hash]);
      expect(await poolSize()).toBe(1);
      await rpc('evm_mine');
      const settled = await resuming;

      expect(settled).toHaveLength(1);
      expect(settled[0]).toMatchObject({ txHash: hash, nonce: before, state: 'confirmed' });
      const receipt = await client.getTransactionReceipt({ hash });
      const block = await client.getBlock({ blockHash: receipt.blockHash });
      expect(block.transactions).toEqual([hash]);
      expect(await minedNonce(account.address)).toBe(before + 1);
      expect(await poolSize()).toBe(0);
      const done = await row(req.operationId);
      expect(done).toMatchObject({ state: 'confirmed', tx_hash: hash, block_hash: receipt.blockHash });
      expect((done.submitted_at as Date).getTime()).toBe((submitted.submitted_at as Date).getTime());
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
  });

  it('crash after the receipt, before the database knew: resume settles it from the chain', async () => {
    const account = freshAccount();
    const before = await minedNonce(account.address);
    const req = request();
    // Automine on: the transaction is mined right after the broadcast (a loaded machine may take a moment: wait for it).
    const crashed = relayerFor(account, crashAt('afterBroadcast'));
    await expect(crashed.send(req)).rejects.toThrow(SimulatedCrash);
    const submitted = await row(req.operationId);
    expect(submitted).toMatchObject({ state: 'submitted', block_number: null, block_hash: null });
    const receipt = await client.waitForTransactionReceipt({ hash: submitted.tx_hash as Hex, pollingInterval: 50 });
    expect(receipt.status).toBe('success');

    const restarted = relayerFor(account);
    const settled = await restarted.resume();
    expect(settled).toEqual([
      expect.objectContaining({ operationId: req.operationId, txHash: submitted.tx_hash, state: 'confirmed', blockNumber: receipt.blockNumber, blockHash: receipt.blockHash }),
    ]);
    const done = await row(req.operationId);
    expect(done.state).toBe('confirmed');
    expect(String(done.block_number)).toBe(receipt.blockNumber.toString());
    expect(done.block_hash).toBe(receipt.blockHash);
    expect(await minedNonce(account.address)).toBe(before + 1);
    expect(await restarted.get(req.operationId)).toMatchObject({ state: 'confirmed', blockNumber: receipt.blockNumber });
  });

  it('the chain lost mined transactions (node restarted from an older state): resume rebroadcasts the same bytes in nonce order', async () => {
    const account = freshAccount();
    const before = await minedNonce(account.address);
    const snapshot = await rpc('evm_snapshot');
    const relayer = relayerFor(account);
    const first = await relayer.send(request());
    const second = await relayer.send(request());
    expect([first.state, second.state]).toEqual(['confirmed', 'confirmed']);
    // The node forgets both blocks, as anvil does when it restarts from a state file dumped before them.
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    expect(await minedNonce(account.address)).toBe(before);
    await expect(client.getTransactionReceipt({ hash: first.txHash })).rejects.toThrow();

    const settled = await relayerFor(account).resume();
    expect(settled.map((t) => [t.operationId, t.txHash, t.state])).toEqual([
      [first.operationId, first.txHash, 'confirmed'],
      [second.operationId, second.txHash, 'confirmed'],
    ]);
    expect(await minedNonce(account.address)).toBe(before + 2);
    for (const tx of [first, second]) {
      const receipt = await client.getTransactionReceipt({ hash: tx.txHash });
      expect((await row(tx.operationId)).block_hash).toBe(receipt.blockHash);
    }
    expect(await rowCount(account.address)).toBe(2);
  });

  it('a transaction a reorganisation moved to another block (same nonce) is settled again from its new block', async () => {
    const account = freshAccount();
    const snapshot = await rpc('evm_snapshot');
    const relayer = relayerFor(account);
    const sent = await relayer.send(request());
    const was = await row(sent.operationId);
    // The block is replaced by an empty one and the same signed transaction lands in the next block.
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    await rpc('evm_mine');
    await rpc('eth_sendRawTransaction', [was.raw_tx]);
    // anvil mines a sent transaction right after answering, not before: wait for the receipt (a flake under load).
    const receipt = await waitFor(() => client.getTransactionReceipt({ hash: sent.txHash }), { what: 'the re-sent transaction to be mined' });
    expect(receipt.blockHash).not.toBe(was.block_hash);

    expect(await relayerFor(account).resume()).toEqual([]); // nothing was lost: its nonce is mined
    expect(await row(sent.operationId)).toMatchObject({ state: 'confirmed', block_number: receipt.blockNumber.toString(), block_hash: receipt.blockHash });
  });

  it('confirmation depth: a transaction counts as confirmed only once its block is that many blocks deep, also on resume', async () => {
    const account = freshAccount();
    const deep = createRelayer({ db, client, account, chainId: CHAIN_ID, clock: systemClock, log, confirmations: 3 });
    const sending = deep.send(request());
    // anvil mines a sent transaction at once, so its receipt can come before the relayer records it as submitted: wait
    // for that record (a flake under load). It cannot be confirmed yet: its block is one deep of three.
    const submitted = await waitFor(
      async () => {
        const r = await db.selectFrom('relayer_transactions').selectAll().where('from_address', '=', account.address.toLowerCase()).executeTakeFirst();
        return r?.state === 'submitted' ? r : null;
      },
      { what: 'the transaction to be recorded as submitted' },
    );
    const receipt = await waitFor(() => client.getTransactionReceipt({ hash: submitted.tx_hash as Hex }), { what: 'the transaction to be mined' });
    await rpc('evm_mine'); // two blocks deep: not yet
    expect((await row(submitted.operation_id)).state).toBe('submitted');
    await rpc('evm_mine');
    expect(await sending).toMatchObject({ state: 'confirmed', blockNumber: receipt.blockNumber });

    // After a crash a receipt that is not deep enough yet is waited for, not settled.
    const crashed = createRelayer({ db, client, account, chainId: CHAIN_ID, clock: systemClock, log, confirmations: 2, faults: crashAt('afterBroadcast') });
    const req = request();
    await expect(crashed.send(req)).rejects.toThrow(SimulatedCrash);
    const resuming = createRelayer({ db, client, account, chainId: CHAIN_ID, clock: systemClock, log, confirmations: 2 }).resume();
    const crashedHash = keccak256((await row(req.operationId)).raw_tx as Hex);
    await waitFor(() => client.getTransactionReceipt({ hash: crashedHash }), { what: 'the crashed transaction to be mined' });
    expect((await row(req.operationId)).state).toBe('submitted');
    await rpc('evm_mine');
    expect(await resuming).toEqual([expect.objectContaining({ operationId: req.operationId, state: 'confirmed' })]);
  });

  it('records a reverted transaction as reverted after a crash', async () => {
    const account = freshAccount();
    // Calling a function on an address with code that reverts: deploy a contract whose runtime is `revert(0,0)`.
    const deployer = relayerFor(account);
    const deployed = await deployer.send(request({ to: null, data: '0x600580600b6000396000f360006000fd', value: 0n }));
    expect(deployed.state).toBe('confirmed');
    const reverter = deployed.contractAddress!;
    expect(reverter).toMatch(/^0x[0-9a-f]{40}$/);

    const req = request({ to: reverter, data: '0x01', value: 0n, gas: 100_000n });
    await expect(relayerFor(account, crashAt('afterBroadcast')).send(req)).rejects.toThrow(SimulatedCrash);
    const settled = await relayerFor(account).resume();
    expect(settled).toEqual([expect.objectContaining({ operationId: req.operationId, state: 'reverted' })]);
    expect((await client.getTransactionReceipt({ hash: settled[0]!.txHash })).status).toBe('reverted');
  });

  it('resume does not mistake a transaction mined between its receipt and nonce reads for a dropped one', async () => {
    const account = freshAccount();
    const before = await minedNonce(account.address);
    const req = request();
    await rpc('evm_setAutomine', [false]);
    try {
      await expect(relayerFor(account, crashAt('afterBroadcast')).send(req)).rejects.toThrow(SimulatedCrash);
      const hash = (await row(req.operationId)).tx_hash as Hex;
      // The node is real; this transport only picks the moment a block is mined: right after the
      // restarted relayer has seen "no receipt yet" for our transaction (as a block arriving then would).
      let minedAfterFirstLook = false;
      const timed = createPublicClient({
        chain: chain(),
        transport: custom({
          async request({ method, params }: { method: string; params?: unknown }) {
            const result = await rpc(method, (params as unknown[] | undefined) ?? []);
            const asksOurs = method === 'eth_getTransactionReceipt' && (params as unknown[])[0] === hash;
            if (asksOurs && result === null && !minedAfterFirstLook) {
              minedAfterFirstLook = true;
              await rpc('evm_mine');
            }
            return result;
          },
        }),
      });
      const restarted = createRelayer({ db, client: timed, account, chainId: CHAIN_ID, clock: systemClock, log });
      const settled = await restarted.resume();
      expect(minedAfterFirstLook).toBe(true);
      expect(settled).toEqual([expect.objectContaining({ txHash: hash, state: 'confirmed' })]);
      expect((await row(req.operationId)).state).toBe('confirmed');
      expect(await minedNonce(account.address)).toBe(before + 1);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
  });

  it('idempotency: the same key sends once; the same key with another payload is refused', async () => {
    const account = freshAccount();
    const relayer = relayerFor(account);
    const before = await minedNonce(account.address);
    const req = request();

    const first = await relayer.send(req);
    const second = await relayer.send(req);
    expect(second.txHash).toBe(first.txHash);
    expect(second.state).toBe('confirmed');
    // Also across a restart, and concurrently.
    const other = relayerFor(account);
    const [a, b] = await Promise.all([other.send(req), other.send(req)]);
    expect([a.txHash, b.txHash]).toEqual([first.txHash, first.txHash]);
    expect(await minedNonce(account.address)).toBe(before + 1);

    await expect(relayer.send({ ...req, data: '0xdeadbeef' })).rejects.toThrow(/different operation/);
    await expect(relayer.send({ ...req, operationId: `${req.operationId}:other` })).rejects.toThrow(/different operation/);
    await expect(relayer.send({ ...req, to: '0x000000000000000000000000000000000000bEEF' })).rejects.toThrow(/different operation/);
    await expect(relayer.send({ ...req, value: (req.value ?? 0n) + 1n })).rejects.toThrow(/different operation/);
    expect(await minedNonce(account.address)).toBe(before + 1);
    expect(await rowCount(account.address)).toBe(1);

    // Concurrent first sends of one new key also send once.
    const fresh = request();
    const [c, d] = await Promise.all([relayer.send(fresh), relayer.send(fresh)]);
    expect(c.txHash).toBe(d.txHash);
    expect(await minedNonce(account.address)).toBe(before + 2);
  });

  it('concurrent sends get distinct consecutive nonces', async () => {
    const account = freshAccount();
    const relayer = relayerFor(account);
    const before = await minedNonce(account.address);
    const sent = await Promise.all(Array.from({ length: 6 }, () => relayer.send(request())));
    expect(sent.map((t) => t.nonce).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5].map((i) => before + i));
    expect(new Set(sent.map((t) => t.txHash)).size).toBe(6);
    expect(sent.every((t) => t.state === 'confirmed')).toBe(true);
    expect(await minedNonce(account.address)).toBe(before + 6);

    // With automine off too (nonces come from the pending pool and our records).
    await rpc('evm_setAutomine', [false]);
    try {
      const submitted = await Promise.all(Array.from({ length: 3 }, () => relayer.submit(request())));
      expect(submitted.map((t) => t.nonce).sort((x, y) => x - y)).toEqual([6, 7, 8].map((i) => before + i));
      await rpc('evm_mine');
      const settled = await Promise.all(submitted.map((t) => relayer.waitFor(t.operationId)));
      expect(settled.every((t) => t.state === 'confirmed')).toBe(true);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect(await minedNonce(account.address)).toBe(before + 9);
  });

  it('dropped: a prepared transaction whose nonce another transaction consumed is marked dropped and reported DROPPED', async () => {
    const account = freshAccount();
    const before = await minedNonce(account.address);
    const req = request();
    await expect(relayerFor(account, crashAt('beforeBroadcast')).send(req)).rejects.toThrow(SimulatedCrash);
    const prepared = await row(req.operationId);
    expect(prepared.state).toBe('prepared');
    expect(Number(prepared.nonce)).toBe(before);
    const ourHash = prepared.tx_hash as Hex;

    // Someone else (another process with the same key) uses that nonce for a different transaction.
    const wallet = createWalletClient({ account, chain: chain(), transport: http(anvil.rpcUrl) });
    const otherHash = await wallet.sendTransaction({ to: SINK, value: parseEther('0.001'), nonce: before });
    expect((await client.waitForTransactionReceipt({ hash: otherHash })).status).toBe('success');
    expect(otherHash).not.toBe(ourHash);
    expect(await minedNonce(account.address)).toBe(before + 1);

    const restarted = relayerFor(account);
    const chainService = createChainService({
      db,
      client,
      relayer: restarted,
      collateral: [],
      settings: { id: CHAIN_ID, name: 'anvil', publicRpcUrl: anvil.rpcUrl, blockExplorerUrl: 'https://basescan.org', readAfterWriteWindowMs: 2000 },
    });
    // Before resume the record still says prepared, but the chain already tells: its nonce is gone.
    expect((await chainService.transactionStatus(ourHash)).state).toBe('DROPPED');

    const settled = await restarted.resume();
    expect(settled).toEqual([expect.objectContaining({ operationId: req.operationId, txHash: ourHash, state: 'dropped' })]);
    expect((await row(req.operationId)).state).toBe('dropped');
    expect(await minedNonce(account.address)).toBe(before + 1);
    await expect(client.getTransactionReceipt({ hash: ourHash })).rejects.toThrow();

    expect(await chainService.transactionStatus(ourHash)).toEqual({
      state: 'DROPPED',
      chainId: CHAIN_ID,
      txHash: ourHash,
      blockNumber: null,
      confirmedAt: null,
      receipt: null,
    });
    expect((await chainService.transactionStatus(otherHash)).state).toBe('CONFIRMED');

    // The relayer goes on with the next nonce.
    const next = await restarted.send(request());
    expect(next).toMatchObject({ nonce: before + 1, state: 'confirmed' });
    expect(await restarted.resume()).toEqual([]);
  });
});
