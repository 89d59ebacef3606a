// The play-money ledger end to end on a real service (PGlite or PostgreSQL + anvil): operations → batches
// committed on chain in journal and legacy mode → proofs from GET /api/v1/ledger/proof/{account} verify on
// chain against ledgerRoot() with OpenZeppelin's MerkleProof → `svc ledger verify` (and verifyLedger)
// reproduce the root from chain data alone, and report a divergence once a tampered payload is committed.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, encodeFunctionData, http, keccak256, type Abi, type Address, type Hex } from 'viem';
import { chainDefinition } from '../../src/chain/clients.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { encodeJournal, nextJournalCommitment } from '../../src/core/ledger/journal.ts';
import { COLLATERAL_ASSET, CREDIT_REASONS, MATCH_KINDS, outcomeAsset, type Account, type LedgerOperation } from '../../src/core/ledger/types.ts';
import { runSteps } from '../../src/db/pipeline.ts';
import { createLedgerBatcher } from '../../src/services/ledger/batcher.ts';
import { balanceKey, writeBalanceSteps } from '../../src/services/ledger/rows.ts';
import { verifyLedger } from '../../src/services/ledger/verify.ts';
import { batchHolding, waitingOperations } from '../../src/services/ledger/batch-range.ts';
import { newAccount } from '../support/agents.ts';
import { onPostgres } from '../support/postgres.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { compileVerifier } from '../support/ledger-verifier.ts';
import { gas } from '../support/markets.ts';

let server: TestServer;
beforeAll(async () => {
  // Batches close only when the test flushes.
  server = await startTestServer({ env: { LEDGER_MODE: 'journal', LEDGER_BATCH_MAX_OPS: '10000', LEDGER_BATCH_INTERVAL_MS: '3600000' } });
});
afterAll(async () => server?.close());

const A = '0xaaaa00000000000000000000000000000000000a' as Account;
const B = '0xbbbb00000000000000000000000000000000000b' as Account;
const C = '0xcccc00000000000000000000000000000000000c' as Account;
const grant = (account: Account, delta: bigint): LedgerOperation => ({ type: 'credit', credit: { account, id: COLLATERAL_ASSET, delta, reason: CREDIT_REASONS.SIGNUP_GRANT } });
const match = (kind: 0 | 1 | 2 | 3, maker: Account, taker: Account, shares: bigint, priceBps: number, fee = 0n): LedgerOperation => ({
  type: 'match',
  match: { maker, taker, marketId: 7n, side: 0, kind, shares, priceBps, fee },
});
const proofOf = (account: string) => server.call('GET', `/api/v1/ledger/proof/${account}`);

/** A batcher of the test's own on the service's ledger and contract (the service's own stopped meanwhile): batches close when flushed or full. */
function batcherOf(mode: 'journal' | 'legacy', maxOps: number) {
  const { services } = server.runtime;
  return createLedgerBatcher({
    db: server.runtime.database.db,
    client: services.chain.client,
    relayer: server.runtime.relayer,
    clock: server.runtime.clock,
    log: server.runtime.log,
    chainId: server.config.chain.id,
    contract: services.ledgerBatcher.contract,
    feeAccount: services.ledger.feeAccount,
    mode,
    maxOps,
    intervalMs: 3_600_000,
  });
}

describe('play-money ledger', () => {
  it('refuses an operation that would leave a balance negative and writes nothing of it', async () => {
    const { ledger } = server.runtime.services;
    await ledger.submit([grant(A, 5_000_000n)]);
    await expect(ledger.submit([grant(B, 1_000_000n), match(MATCH_KINDS.MINT, A, B, 10n, 6000)])).rejects.toMatchObject({ code: 'LEDGER_INSUFFICIENT_BALANCE' });
    expect(await ledger.balancesOf(B)).toEqual([]);
    // A source is written once.
    const first = await ledger.submit([grant(C, 1n)], { source: 'test-grant:C' });
    const again = await ledger.submit([grant(C, 1n)], { source: 'test-grant:C' });
    expect(again).toEqual({ seqs: first.seqs, appended: false });
  });

  it('serves no uncommitted balance, then proofs of the committed root that verify on chain with MerkleProof', async () => {
    const { ledger, ledgerBatcher } = server.runtime.services;
    await ledger.submit([grant(B, 9_000_000n), match(MATCH_KINDS.MINT, A, B, 5n, 6000, 250n), match(MATCH_KINDS.TRANSFER, A, B, 2n, 5500), match(MATCH_KINDS.MERGE, A, B, 2n, 5000)]);
    const before = await proofOf(A);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ batchNonce: 0, root: `0x${'00'.repeat(32)}`, balances: [] });

    const outcome = await ledgerBatcher.flush({ force: true });
    expect(outcome).toMatchObject({ nonce: 1n, opCount: 6 });
    const abi = loadArtifact('LedgerCommitment').abi;
    const client = server.runtime.services.chain.client;
    const contract = ledgerBatcher.contract;
    expect(await client.readContract({ address: contract, abi, functionName: 'ledgerRoot' })).toBe(outcome!.root);
    expect(await client.readContract({ address: contract, abi, functionName: 'batchNonce' })).toBe(1n);

    const res = await proofOf(A.toUpperCase().replace('0X', '0x'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ account: A, chainId: server.config.chain.id, contract, batchNonce: 1, root: outcome!.root });
    const yes = outcomeAsset(7n, 0).toString();
    const byAsset = Object.fromEntries((res.body.balances as { assetId: string; balance: string }[]).map((b) => [b.assetId, b.balance]));
    // A: granted 5.000000, paid 3.000000 for 5 Yes (mint at 60%), sold 2 Yes for 1.100000, merged 2 for 1.000000.
    expect(byAsset).toEqual({ '0': (5_000_000n - 3_000_000n + 1_100_000n + 1_000_000n).toString(), [yes]: '1' });

    const deployer = newAccount();
    await gas(server, deployer.address);
    const wallet = createWalletClient({ account: deployer, chain: chainDefinition(server.config.chain.id, 'test', server.runtime.rpcUrl), transport: http(server.runtime.rpcUrl) });
    const verifier = compileVerifier();
    const hash = await wallet.deployContract({ abi: verifier.abi, bytecode: verifier.bytecode });
    const address = (await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).contractAddress as Address;
    const onChainRoot = (await client.readContract({ address: contract, abi, functionName: 'ledgerRoot' })) as Hex;
    for (const account of [A, B, C]) {
      const body = (await proofOf(account)).body as { balances: { assetId: string; balance: string; proof: Hex[] }[] };
      expect(body.balances.length).toBeGreaterThan(0);
      for (const b of body.balances) {
        const args = [b.proof, onChainRoot, account, BigInt(b.assetId), BigInt(b.balance)] as const;
        expect(await client.readContract({ address, abi: verifier.abi as Abi, functionName: 'verify', args })).toBe(true);
        expect(await client.readContract({ address, abi: verifier.abi as Abi, functionName: 'verify', args: [b.proof, onChainRoot, account, BigInt(b.assetId), BigInt(b.balance) + 1n] })).toBe(false);
      }
    }
  });

  it('answers 400 INVALID_ADDRESS for a bad address and an empty list for an account with nothing', async () => {
    const bad = await proofOf('0x1234');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_ADDRESS');
    const empty = await proofOf('0x000000000000000000000000000000000000dead');
    expect(empty.status).toBe(200);
    expect(empty.body.balances).toEqual([]);
  });

  it('answers proofs only while the committed tree is loaded: a stopped batcher is a 503 to retry, and a start ended while it builds loads nothing', async () => {
    const { ledgerBatcher } = server.runtime.services;
    expect(ledgerBatcher.loaded()).toBe(true);
    expect((await proofOf(A)).status).toBe(200);
    await ledgerBatcher.stop();
    try {
      expect(ledgerBatcher.loaded()).toBe(false);
      const refused = await proofOf(A);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(refused.headers['retry-after']).toBe('1');
      // A batcher of its own is not loaded until its start has built the tree, and a stop while it builds ends that
      // start: nothing is marked loaded afterwards (a leader deposed while it was being elected).
      const own = batcherOf('journal', 10_000);
      expect(own.loaded()).toBe(false);
      const starting = own.start();
      await own.stop();
      await starting;
      expect(own.loaded()).toBe(false);
      await own.start();
      expect(own.loaded()).toBe(true);
      await own.stop();
      expect(own.loaded()).toBe(false);
    } finally {
      await ledgerBatcher.start();
    }
    expect(ledgerBatcher.loaded()).toBe(true);
    expect((await proofOf(A)).status).toBe(200);
  });

  it('keeps up with a backlog: a tick commits full batch after full batch and leaves the rest until it is due', async () => {
    const services = server.runtime.services;
    const { db } = server.runtime.database;
    await services.ledgerBatcher.stop();
    const small = batcherOf('journal', 2);
    await small.start();
    try {
      const nonce = small.committed().nonce;
      const accounts = Array.from({ length: 5 }, () => newAccount().address.toLowerCase() as Account);
      for (const a of accounts) await services.ledger.submit([grant(a, 1_000n)]);
      // Each row's version (xmin: the transaction that wrote it), to show that batching them writes nothing on them.
      const versions = () => sql<{ seq: string; xmin: string }>`SELECT o.seq::text AS seq, o.xmin::text AS xmin FROM ledger_operations o ORDER BY o.seq`.execute(db).then((r) => r.rows);
      const before = await versions();
      // Five waiting, two a batch: two full batches now (one a tick before), the fifth when its interval has passed.
      const outcomes = await small.catchUp();
      expect(outcomes.map((o) => [o.nonce, o.opCount])).toEqual([
        [nonce + 1n, 2],
        [nonce + 2n, 2],
      ]);
      const waiting = await waitingOperations(db).select('op').execute();
      expect(waiting).toHaveLength(1);
      // The batches are their ranges of seqs (batch-range.ts): closing and confirming them left every operation's row as it was.
      expect(await versions()).toEqual(before);
      const last = before.slice(-5).map((r) => r.seq);
      const holding = await db.selectFrom('ledger_operations as o').leftJoinLateral(batchHolding(db, sql.ref('o.seq')), (join) => join.onTrue()).select(['o.seq', 'b.nonce']).where('o.seq', '>=', last[0]!).orderBy('o.seq').execute();

      expect(holding.map((h) => (h.nonce === null ? null : BigInt(h.nonce) - nonce))).toEqual([1n, 1n, 2n, 2n, null]);
      expect(await small.catchUp()).toEqual([]);
      const abi = loadArtifact('LedgerCommitment').abi;
      expect(await services.chain.client.readContract({ address: small.contract, abi, functionName: 'batchNonce' })).toBe(nonce + 2n);
      expect(await small.flush({ force: true })).toMatchObject({ nonce: nonce + 3n, opCount: 1 });
    } finally {
      await small.stop();
      await services.ledgerBatcher.start();
    }
  });

  // PostgreSQL only: on PGlite a transaction held open keeps the one connection, so nothing else runs meanwhile anyway.
  it.skipIf(!onPostgres)('closes a batch while a ledger writer is in flight, without its lock: the batch takes what committed, the writer\'s operations the next one', async () => {
    const services = server.runtime.services;
    const { db } = server.runtime.database;
    await services.ledgerBatcher.stop();
    const own = batcherOf('journal', 10_000);
    await own.start();
    let release = () => {};
    let writer: Promise<string[]> = Promise.resolve([]);
    try {
      await own.flush({ force: true });
      const [done, inFlight] = [newAccount().address.toLowerCase() as Account, newAccount().address.toLowerCase() as Account];
      const { seqs: [committedSeq] } = await services.ledger.submit([grant(done, 7n)]);
      // A writer holding the ledger lock, its operation written and not committed.
      const held = new Promise<void>((resolve) => (release = resolve));
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      writer = db.transaction().execute(async (trx) => {
        const { seqs } = await services.ledger.submit([grant(inFlight, 9n)], { trx });
        wrote();
        await held;
        return seqs;
      });
      await written;
      // Before session 29 the batcher read what waits under the ledger lock: this waited for the writer, which waits for the test.
      const batch = await own.flush({ force: true });
      expect(batch).toMatchObject({ opCount: 1 });
      const holding = await db.selectFrom('ledger_operations as o').leftJoinLateral(batchHolding(db, sql.ref('o.seq')), (join) => join.onTrue()).select(['o.seq', 'b.nonce']).where('o.seq', '>=', committedSeq!).orderBy('o.seq').execute();
      expect(holding.map((h) => [String(h.seq), h.nonce === null ? null : BigInt(h.nonce)])).toEqual([[committedSeq, batch!.nonce]]);
      release();
      const [writerSeq] = await writer;
      expect(BigInt(writerSeq!)).toBeGreaterThan(BigInt(committedSeq!));
      expect(await own.flush({ force: true })).toMatchObject({ nonce: batch!.nonce + 1n, opCount: 1 });
    } finally {
      release();
      await writer.catch(() => undefined);
      await own.stop();
      await services.ledgerBatcher.start();
    }
  });

  it('commits a legacy batch after journal ones; the replay reproduces the root, then finds a tampered payload', async () => {
    const services = server.runtime.services;
    await services.ledgerBatcher.stop();
    const legacy = batcherOf('legacy', 10_000);
    await legacy.start();
    try {
      // The journal batches before it: the first test's, the backlog test's three, and on PostgreSQL the in-flight writer's two.
      const before = legacy.committed().nonce;
      expect(before).toBe(onPostgres ? 6n : 4n);
      const [n, t] = [before + 1n, before + 2n];
      await services.ledger.submit([grant(C, 1_000_000n), match(MATCH_KINDS.TRANSFER, B, C, 2n, 4000, 10n), match(MATCH_KINDS.TAKER_SELLS, B, C, 1n, 3000, 5n)]);
      const second = await legacy.flush({ force: true });
      expect(second).toMatchObject({ nonce: n, opCount: 3 });
      const receipt = await services.chain.client.getTransactionReceipt({ hash: second!.txHash });
      expect(receipt.logs.length).toBeGreaterThan(1); // TransferSingle events describe the balance changes

      const contract = legacy.contract;
      const report = await verifyLedger({ client: services.chain.client, contract });
      expect(report).toMatchObject({ ok: true, batches: Number(n), nonce: n, root: second!.root });
      expect(cli(contract)).toMatchObject({ status: 0 });

      // The operator commits a journal batch whose payload does not produce the root it claims.
      const abi = loadArtifact('LedgerCommitment').abi;
      const journal = (await services.chain.client.readContract({ address: contract, abi, functionName: 'journalCommitment' })) as Hex;
      const payload = encodeJournal({ nonce: t, operations: [{ type: 'credit', credit: { account: A, id: 0n, delta: 1_000n, reason: CREDIT_REASONS.ADJUSTMENT } }] });
      const payloadHex = `0x${Buffer.from(payload).toString('hex')}` as Hex;
      const tampered = await server.runtime.relayer.send({
        operationId: 'test:tamper',
        idempotencyKey: 'test:tamper',
        to: contract,
        data: encodeFunctionData({ abi, functionName: 'commitJournalBatch', args: [t, second!.root, second!.root, journal, keccak256(payloadHex), payloadHex] }),
      });
      expect(tampered.state).toBe('confirmed');
      expect(nextJournalCommitment(journal, t, keccak256(payloadHex))).toBe(await services.chain.client.readContract({ address: contract, abi, functionName: 'journalCommitment' }));
      const broken = await verifyLedger({ client: services.chain.client, contract });
      expect(broken.ok).toBe(false);
      expect(broken.batches).toBe(Number(n));
      expect(broken.divergence).toMatch(new RegExp(`^batch ${t} .*accepted root .* replaying the batch gives`));
      const out = cli(contract);
      expect(out.status).toBe(1);
      expect(out.stdout).toMatch(new RegExp(`DIVERGENCE after ${n} verified batches: batch ${t}`));
    } finally {
      await legacy.stop();
    }
  });

  it('updates the balance rows it read in place, without index entries; refuses a row gone meanwhile; a source is unique', async () => {
    const { ledger } = server.runtime.services;
    const { db } = server.runtime.database;
    const D = '0xdddd00000000000000000000000000000000000d' as Account;
    const E = '0xeeee00000000000000000000000000000000000e' as Account;
    await ledger.submit([grant(D, 9_000_000n), grant(E, 9_000_000n), match(MATCH_KINDS.MINT, D, E, 5n, 6000, 1n)]);
    // Every row these touch is there: each is updated, heap-only (no indexed column changes: migration 0040), none inserted.
    // Counted in the transaction's statistics (PGlite's single backend may carry counts from before it: the difference).
    const counts = await db.transaction().execute(async (trx) => {
      const now = async () => {
        const row = (await sql<{ ins: string; upd: string; hot: string }>`SELECT n_tup_ins::text AS ins, n_tup_upd::text AS upd, n_tup_hot_upd::text AS hot
          FROM pg_stat_xact_user_tables WHERE relname = 'ledger_balances'`.execute(trx)).rows[0] ?? { ins: '0', upd: '0', hot: '0' };
        return { ins: Number(row.ins), upd: Number(row.upd), hot: Number(row.hot) };
      };
      const before = await now();
      await ledger.submit([match(MATCH_KINDS.MINT, D, E, 2n, 6000, 1n), grant(D, 1n)], { trx });
      const after = await now();
      return { ins: after.ins - before.ins, upd: after.upd - before.upd, hot: after.hot - before.hot };
    });
    expect(counts.upd).toBeGreaterThanOrEqual(4);
    expect(counts).toEqual({ ins: 0, upd: counts.upd, hot: counts.upd });
    // A row the writer read under the ledger lock cannot be gone; if it were, the update says so and nothing is written.
    const ghost = { account: '0x9999000000000000000000000000000000000009' as Account, assetId: COLLATERAL_ASSET, balance: 5n };
    await expect(db.transaction().execute((trx) => runSteps(trx, writeBalanceSteps(trx, 'ledger_balances', [ghost], new Set([balanceKey(ghost)]))))).rejects.toThrow(/1 of 1 balance row\(s\) read under the ledger lock are gone/);
    expect(await ledger.balancesOf(ghost.account)).toEqual([]);
    // A source is still written once (migration 0040 made its index partial; test/db/indexes.test.ts reads through it).
    await ledger.submit([grant(D, 1n), grant(E, 1n)], { source: 'test-grant:DE' });
    await expect(sql`INSERT INTO ledger_operations (kind, op, source, created_at) VALUES ('credit', '{}', 'test-grant:DE#0', now())`.execute(db)).rejects.toMatchObject({ code: '23505' });
  });

  it('closes no batch against a tree it has not loaded: a flush before start is refused, one after stop closes nothing', async () => {
    const { ledger, ledgerBatcher } = server.runtime.services;
    const { db } = server.runtime.database;
    const waits = async () => (await waitingOperations(db).select('source').execute()).some((r) => r.source === 'test-grant:unloaded#0');
    // The service's own batcher stopped meanwhile, so nothing else closes the operation below.
    await ledgerBatcher.stop();
    try {
      await ledger.submit([grant('0xdddd00000000000000000000000000000000000d' as Account, 1n)], { source: 'test-grant:unloaded' });
      expect(await waits()).toBe(true);
      const own = batcherOf('journal', 10_000);
      await expect(own.flush({ force: true })).rejects.toThrow(/not loaded/);
      await own.start();
      await own.stop();
      expect(await own.flush({ force: true })).toBeNull();
      expect(await waits()).toBe(true);
    } finally {
      await ledgerBatcher.start();
    }
  });
});

/** `svc ledger verify` as a person runs it: a separate process that knows only the RPC URL and the contract. */
function cli(contract: string) {
  const r = spawnSync(process.execPath, [path.resolve('bin/svc.mjs'), 'ledger', 'verify', '--contract', contract, '--rpc', server.runtime.rpcUrl], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, CHAIN_ID: String(server.config.chain.id) },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
