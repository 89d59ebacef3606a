// The batcher survives a crash at each point of a batch's life — closed but not sent, sent but no receipt
// yet, receipt in but not confirmed in the database: the restarted service loses no operation, commits none
// twice (the chain's batchNonce advances once) and carries on with the right nonce. The crash is a fault
// thrown at that point, after which the service is stopped and started again on the same data folder,
// database and chain state.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeFunctionData } from 'viem';
import { describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import type { RelayerFaults } from '../../src/chain/relayer.ts';
import { COLLATERAL_ASSET, CREDIT_REASONS, type Account, type LedgerOperation } from '../../src/core/ledger/types.ts';
import { sql } from 'kysely';
import type { LedgerFaults } from '../../src/services/ledger/batcher.ts';
import { verifyLedger } from '../../src/services/ledger/verify.ts';
import { batchHolding } from '../../src/services/ledger/batch-range.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { dropPostgres, freshPostgresUrl, onPostgres, startTestServer, type TestServer } from '../support/harness.ts';

const grant = (account: Account, delta: bigint): LedgerOperation => ({ type: 'credit', credit: { account, id: COLLATERAL_ASSET, delta, reason: CREDIT_REASONS.SIGNUP_GRANT } });
const A = '0xaaaa00000000000000000000000000000000000a' as Account;
const B = '0xbbbb00000000000000000000000000000000000b' as Account;
const ENV = { LEDGER_MODE: 'journal', LEDGER_BATCH_MAX_OPS: '10000', LEDGER_BATCH_INTERVAL_MS: '3600000' };

/** The chain holds batch 1 as the database does; the ledger carries on with batch 2, and a replay verifies both. */
async function expectBatchOneThenCarryOn(server: TestServer): Promise<void> {
  const { ledger, ledgerBatcher, chain } = server.runtime.services;
  const abi = loadArtifact('LedgerCommitment').abi;
  const read = (functionName: 'batchNonce' | 'ledgerRoot') => chain.client.readContract({ address: ledgerBatcher.contract, abi, functionName });
  expect(ledgerBatcher.committed().nonce).toBe(1n);
  expect(await read('batchNonce')).toBe(1n);
  expect(await read('ledgerRoot')).toBe(ledgerBatcher.committed().root);
  await ledger.submit([grant(A, 5n)]);
  expect(await ledgerBatcher.flush({ force: true })).toMatchObject({ nonce: 2n, opCount: 1 });
  expect(await verifyLedger({ client: chain.client, contract: ledgerBatcher.contract })).toMatchObject({ ok: true, batches: 2, nonce: 2n });
}

const crash = (where: string) => () => {
  throw new Error(`simulated crash ${where}`);
};

const POINTS: { name: string; ledgerFaults?: LedgerFaults; relayerFaults?: RelayerFaults }[] = [
  { name: 'after the batch is closed, before it is sent', ledgerFaults: { beforeSend: crash('before send') } },
  {
    name: 'after it is broadcast, before its receipt',
    relayerFaults: { afterBroadcast: (tx) => (tx.operationId.startsWith('ledger:') ? crash('after broadcast')() : undefined) },
  },
  { name: 'after its receipt, before it is confirmed in the database', ledgerFaults: { afterReceipt: crash('after receipt') } },
];

describe('ledger batcher crash safety', () => {
  for (const point of POINTS) {
    it(`resumes a batch interrupted ${point.name}`, async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-ledger-crash-'));
      const databaseUrl = onPostgres ? await freshPostgresUrl() : undefined;
      const start = (faults: { ledgerFaults?: LedgerFaults; relayerFaults?: RelayerFaults } = {}) =>
        startTestServer({ dataDir, persistent: true, databaseUrl, env: ENV, ...faults });
      try {
        const first = await start(point);
        await first.runtime.services.ledger.submit([grant(A, 10n), grant(B, 20n)]);
        await expect(first.runtime.services.ledgerBatcher.flush({ force: true })).rejects.toThrow(/simulated crash/);
        await first.close();

        const second = await start();
        try {
          // The restart finished batch 1: on chain once, confirmed once, both operations in it.
          const db = second.runtime.database.db;
          const held = db.selectFrom('ledger_operations as o').leftJoinLateral(batchHolding(db, sql.ref('o.seq')), (join) => join.onTrue());
          expect((await held.select('b.nonce').orderBy('o.seq').execute()).map((r) => String(r.nonce))).toEqual(['1', '1']);
          expect(await db.selectFrom('ledger_batches').select(['nonce', 'status']).execute()).toEqual([{ nonce: '1', status: 'confirmed' }]);
          const sends = await db.selectFrom('relayer_transactions').select('operation_id').where('operation_id', 'like', 'ledger:%').execute();
          expect(sends).toHaveLength(1);
          const proof = await second.call('GET', `/api/v1/ledger/proof/${B}`);
          expect(proof.body.balances).toMatchObject([{ assetId: '0', balance: '20' }]);

          // And it carries on with the next nonce.
          await expectBatchOneThenCarryOn(second);
        } finally {
          await second.close();
        }
      } finally {
        if (databaseUrl) await dropPostgres(databaseUrl);
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});

describe('the chain is the authority', () => {
  it('starts again after the chain lost a committed batch: the relayer rebroadcasts its bytes, the batch is back on chain', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-ledger-lost-'));
    const databaseUrl = onPostgres ? await freshPostgresUrl() : undefined;
    const start = () => startTestServer({ dataDir, persistent: true, databaseUrl, env: ENV });
    try {
      const first = await start();
      const rpcUrl = first.runtime.rpcUrl;
      // The state anvil would restart from if it died right after the commit (it dumps its state once a second).
      const before = await rpc(rpcUrl, 'evm_snapshot');
      await first.runtime.services.ledger.submit([grant(A, 10n), grant(B, 20n)]);
      const committed = await first.runtime.services.ledgerBatcher.flush({ force: true });
      expect(committed).toMatchObject({ nonce: 1n });
      await rpc(rpcUrl, 'evm_revert', [before]);
      await first.close(); // anvil dumps the state without the batch

      const second = await start(); // refused with WrongNonce on every start before
      try {
        await expectBatchOneThenCarryOn(second);
      } finally {
        await second.close();
      }
    } finally {
      if (databaseUrl) await dropPostgres(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('while running, a batch the relayer could not put back (its nonce went to another transaction) is sent again from its calldata', async () => {
    const server = await startTestServer({ env: ENV });
    try {
      const { ledger, ledgerBatcher, chain } = server.runtime.services;
      const rpcUrl = server.runtime.rpcUrl;
      const before = await rpc(rpcUrl, 'evm_snapshot');
      await ledger.submit([grant(A, 10n), grant(B, 20n)]);
      const committed = await ledgerBatcher.flush({ force: true });
      const sent = await server.runtime.database.db.selectFrom('relayer_transactions').select(['nonce', 'tx_hash']).where('tx_hash', '=', committed!.txHash.toLowerCase()).executeTakeFirstOrThrow();
      // The chain loses the batch, and the operator's nonce moves past it: its signed bytes can never be mined again.
      await rpc(rpcUrl, 'evm_revert', [before]);
      await rpc(rpcUrl, 'anvil_setNonce', [server.runtime.operator, `0x${(Number(sent.nonce) + 1).toString(16)}`]);
      await rpc(rpcUrl, 'evm_mine');

      await server.runtime.reconcileChain();
      expect(ledgerBatcher.halted()).toBeNull();
      const row = await server.runtime.database.db.selectFrom('ledger_batches').select(['tx_hash', 'status']).where('nonce', '=', '1').executeTakeFirstOrThrow();
      expect(row.status).toBe('confirmed');
      expect(row.tx_hash).not.toBe(committed!.txHash);
      expect((await chain.receiptOf(row.tx_hash as `0x${string}`))?.status).toBe('success');
      await expectBatchOneThenCarryOn(server);
    } finally {
      await server.close();
    }
  });

  it('a contract that holds another batch than the database halts the batcher with a reason, and start-up carries on', async () => {
    const server = await startTestServer({ env: ENV });
    try {
      const { ledger, ledgerBatcher } = server.runtime.services;
      await ledger.submit([grant(A, 10n)]);
      await ledgerBatcher.flush({ force: true });
      // Somebody else's batch 2 on our contract (a second svc on the same operator key, a restored database).
      const abi = loadArtifact('LedgerCommitment').abi;
      const root = ledgerBatcher.committed().root;
      const other = `0x${'ab'.repeat(32)}` as const;
      await server.runtime.relayer.send({
        operationId: 'test:foreign-batch',
        idempotencyKey: 'test:foreign-batch',
        to: ledgerBatcher.contract,
        data: encodeFunctionData({ abi, functionName: 'commitBatch', args: [2n, root, other, [], [], true] }),
      });

      await server.runtime.reconcileChain();
      expect(ledgerBatcher.halted()).toMatch(/the contract holds batch 2, this database's last confirmed batch is 1/);
      await ledger.submit([grant(A, 5n)]);
      await expect(ledgerBatcher.flush({ force: true })).rejects.toThrow(/halted/);
      expect((await server.call('GET', '/api/agent/v1/health')).status).toBeLessThan(500);
    } finally {
      await server.close();
    }
  });
});
