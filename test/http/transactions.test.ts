// Transaction status over HTTP (GET /api/v1/transactions/{hash} and its agent twin) against a real
// anvil: the chain receipt is authoritative, operationId/idempotencyKey are echoed verbatim, statusUrl
// leads to the same answer, bad input is refused with problem+json, an unreachable node is a 503.
import { encodeFunctionData, erc20Abi, type Address, type Hex, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainDefinition, createChainClient } from '../../src/chain/clients.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { rpc as rpcAt } from '../support/anvil-rpc.ts';

const RECIPIENT: Address = '0x000000000000000000000000000000000000dEaD';
const UNKNOWN_HASH: Hex = `0x${'ab'.repeat(32)}`;

const expectProblem = (res: CallResult, status: number, code: string) => {
  expect(res.status, res.text).toBe(status);
  expect(String(res.headers['content-type'])).toContain('application/problem+json');
  expect(res.body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String) });
  expect(String(res.body.type)).toMatch(new RegExp(`/errors/${code}$`));
};


const transferData = (amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, amount] });

describe('GET /api/v1/transactions/{hash}', () => {
  let server: TestServer;
  let client: PublicClient;
  let pm: Address;
  let usdc: Address;
  let seq = 0;
  const ids = () => {
    seq += 1;
    return { operationId: `test:transactions:${seq}`, idempotencyKey: `tx-status-${seq}` };
  };

  beforeAll(async () => {
    server = await startTestServer();
    const rpcUrl = server.runtime.rpcUrl;
    client = createChainClient(chainDefinition(8453, 'test', rpcUrl), rpcUrl);
    pm = server.runtime.deployments.ParticipationToken!.address;
    usdc = server.runtime.deployments.TestUSDC!.address;
  });
  afterAll(async () => server?.close());

  it('answers CONFIRMED with the receipt, echoes the labels and links the agent twin', async () => {
    const tx = await server.runtime.relayer.send({ ...ids(), to: pm, data: transferData(10n ** 18n) });
    expect(tx.state).toBe('confirmed');
    const receipt = await client.getTransactionReceipt({ hash: tx.txHash });
    const block = await client.getBlock({ blockHash: receipt.blockHash });

    const q = new URLSearchParams({ operationId: 'op-42', idempotencyKey: 'key-42' });
    const res = await server.call('GET', `/api/v1/transactions/${tx.txHash}?${q}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      state: 'CONFIRMED',
      operationId: 'op-42',
      idempotencyKey: 'key-42',
      chainId: 8453,
      txHash: tx.txHash,
      blockNumber: receipt.blockNumber.toString(),
      confirmedAt: new Date(Number(block.timestamp) * 1000).toISOString(),
      statusUrl: `/api/agent/v1/transactions/status?hash=${tx.txHash}&chainId=8453&operationId=op-42&idempotencyKey=key-42`,
      receipt: {
        status: 'success',
        blockNumber: receipt.blockNumber.toString(),
        blockHash: receipt.blockHash,
        transactionIndex: String(receipt.transactionIndex),
      },
    });
    expect(res.body.blockNumber).toBe(tx.blockNumber!.toString());
    expect(res.body.receipt.blockHash).toBe(tx.blockHash);

    const twin = await server.call('GET', res.body.statusUrl);
    expect(twin.status, twin.text).toBe(200);
    expect(twin.body).toEqual(res.body);
  });

  it('echoes labels verbatim (null when absent) and round-trips odd characters through statusUrl', async () => {
    const tx = await server.runtime.relayer.send({ ...ids(), to: pm, data: transferData(1n) });
    const bare = await server.call('GET', `/api/v1/transactions/${tx.txHash}`);
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ operationId: null, idempotencyKey: null, chainId: 8453 });
    expect(bare.body.statusUrl).toBe(`/api/agent/v1/transactions/status?hash=${tx.txHash}&chainId=8453`);

    const operationId = 'order #7 & co/ünï=+?';
    const idempotencyKey = ' spaced  key ';
    const q = new URLSearchParams({ operationId, idempotencyKey, chainId: '8453', submittedAt: '2026-11-21T12:00:00.000Z' });
    const res = await server.call('GET', `/api/v1/transactions/${tx.txHash.toUpperCase().replace('0X', '0x')}?${q}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ state: 'CONFIRMED', operationId, idempotencyKey, txHash: tx.txHash });
    const link = new URL(res.body.statusUrl, 'http://svc.test');
    expect(link.pathname).toBe('/api/agent/v1/transactions/status');
    expect(Object.fromEntries(link.searchParams)).toEqual({ hash: tx.txHash, chainId: '8453', operationId, idempotencyKey });
    const twin = await server.call('GET', res.body.statusUrl);
    expect(twin.body).toEqual(res.body);
  });

  it('answers REVERTED with the receipt of a reverted transaction', async () => {
    // The operator holds no TestUSDC, so the transfer reverts; an explicit gas skips estimation.
    const tx = await server.runtime.relayer.send({ ...ids(), to: usdc, data: transferData(1n), gas: 200_000n });
    expect(tx.state).toBe('reverted');
    const receipt = await client.getTransactionReceipt({ hash: tx.txHash });
    expect(receipt.status).toBe('reverted');
    const res = await server.call('GET', `/api/v1/transactions/${tx.txHash}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      state: 'REVERTED',
      txHash: tx.txHash,
      blockNumber: receipt.blockNumber.toString(),
      confirmedAt: expect.any(String),
      receipt: { status: 'reverted', blockNumber: receipt.blockNumber.toString(), blockHash: receipt.blockHash, transactionIndex: String(receipt.transactionIndex) },
    });
    const twin = await server.call('GET', res.body.statusUrl);
    expect(twin.body).toEqual(res.body);
  });

  it('answers PENDING while the transaction waits in the pool, CONFIRMED once mined', async () => {
    const rpcUrl = server.runtime.rpcUrl;
    await rpcAt(rpcUrl, 'evm_setAutomine', [false]);
    try {
      const req = { ...ids(), to: pm, data: transferData(2n) };
      const tx = await server.runtime.relayer.submit(req);
      expect(tx.state).toBe('submitted');

      const pending = await server.call('GET', `/api/v1/transactions/${tx.txHash}?operationId=${req.operationId}`);
      expect(pending.status, pending.text).toBe(200);
      expect(pending.body).toEqual({
        state: 'PENDING',
        operationId: req.operationId,
        idempotencyKey: null,
        chainId: 8453,
        txHash: tx.txHash,
        blockNumber: null,
        confirmedAt: null,
        statusUrl: `/api/agent/v1/transactions/status?hash=${tx.txHash}&chainId=8453&operationId=${encodeURIComponent(req.operationId)}`,
        receipt: null,
      });
      const twin = await server.call('GET', pending.body.statusUrl);
      expect(twin.body).toEqual(pending.body);

      await rpcAt(rpcUrl, 'evm_mine');
      const confirmed = await server.call('GET', `/api/v1/transactions/${tx.txHash}`);
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toMatchObject({ state: 'CONFIRMED', receipt: { status: 'success' } });
      const settled = await server.runtime.relayer.waitFor(req.operationId);
      expect(settled.state).toBe('confirmed');
      expect(confirmed.body.blockNumber).toBe(settled.blockNumber!.toString());
    } finally {
      await rpcAt(rpcUrl, 'evm_setAutomine', [true]);
    }
  });

  it('needs no credential and ignores an invalid one', async () => {
    const tx = await server.runtime.relayer.send({ ...ids(), to: pm, data: transferData(3n) });
    const res = await server.call('GET', `/api/v1/transactions/${tx.txHash}`);
    expect(res.status).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
    const agent = await server.call('GET', `/api/agent/v1/transactions/status?hash=${tx.txHash}`);
    expect(agent.status).toBe(200);
    expect(agent.body.state).toBe('CONFIRMED');
  });

  it('refuses a malformed hash with 400 INVALID_PAYLOAD naming params.hash', async () => {
    for (const bad of ['0x1234', `0x${'zz'.repeat(32)}`, `${'ab'.repeat(32)}`, `0x${'ab'.repeat(33)}`]) {
      const res = await server.call('GET', `/api/v1/transactions/${bad}`);
      expectProblem(res, 400, 'INVALID_PAYLOAD');
      expect(res.body.errors).toEqual([expect.objectContaining({ path: 'params.hash', message: expect.any(String) })]);
    }
    // The agent twin is a GET with query parameters: INVALID_QUERY, as on every agent GET.
    const agent = await server.call('GET', '/api/agent/v1/transactions/status?hash=0x1234');
    expectProblem(agent, 400, 'INVALID_QUERY');
    expect(agent.body.errors).toEqual([expect.objectContaining({ path: 'query.hash' })]);
    expectProblem(await server.call('GET', '/api/agent/v1/transactions/status'), 400, 'INVALID_QUERY');
  });

  it('bounds operationId and idempotencyKey at 1..200 characters', async () => {
    const tx = await server.runtime.relayer.send({ ...ids(), to: pm, data: transferData(4n) });
    for (const field of ['operationId', 'idempotencyKey']) {
      const ok = await server.call('GET', `/api/v1/transactions/${tx.txHash}?${field}=${'a'.repeat(200)}`);
      expect(ok.status, `${field} 200 chars`).toBe(200);
      expect(ok.body[field]).toBe('a'.repeat(200));
      const long = await server.call('GET', `/api/v1/transactions/${tx.txHash}?${field}=${'a'.repeat(201)}`);
      expectProblem(long, 400, 'INVALID_PAYLOAD');
      expect(long.body.errors).toEqual([expect.objectContaining({ path: `query.${field}` })]);
      expectProblem(await server.call('GET', `/api/v1/transactions/${tx.txHash}?${field}=`), 400, 'INVALID_PAYLOAD');
      const agentLong = await server.call('GET', `/api/agent/v1/transactions/status?hash=${tx.txHash}&${field}=${'a'.repeat(201)}`);
      expectProblem(agentLong, 400, 'INVALID_QUERY');
    }
  });

  it('refuses a submittedAt that is not an ISO timestamp, an unknown query field and a non-numeric chainId', async () => {
    const tx = await server.runtime.relayer.send({ ...ids(), to: pm, data: transferData(5n) });
    const at = await server.call('GET', `/api/v1/transactions/${tx.txHash}?submittedAt=yesterday`);
    expectProblem(at, 400, 'INVALID_PAYLOAD');
    expect(at.body.errors).toEqual([expect.objectContaining({ path: 'query.submittedAt' })]);
    expect((await server.call('GET', `/api/v1/transactions/${tx.txHash}?submittedAt=2026-11-21T12:00:00%2B01:00`)).status).toBe(200);

    const extra = await server.call('GET', `/api/v1/transactions/${tx.txHash}?foo=bar`);
    expectProblem(extra, 400, 'INVALID_PAYLOAD');
    expect(extra.body.errors).toEqual([expect.objectContaining({ path: expect.stringMatching(/^query/) })]);
    expectProblem(await server.call('GET', `/api/agent/v1/transactions/status?hash=${tx.txHash}&foo=bar`), 400, 'INVALID_QUERY');

    const abc = await server.call('GET', `/api/v1/transactions/${tx.txHash}?chainId=abc`);
    expectProblem(abc, 400, 'INVALID_PAYLOAD');
    expect(abc.body.errors).toEqual([expect.objectContaining({ path: 'query.chainId' })]);
  });

  it('refuses another chain with 400 INVALID_CHAIN and accepts the active one', async () => {
    const tx = await server.runtime.relayer.send({ ...ids(), to: pm, data: transferData(6n) });
    expectProblem(await server.call('GET', `/api/v1/transactions/${tx.txHash}?chainId=1`), 400, 'INVALID_CHAIN');
    expectProblem(await server.call('GET', `/api/agent/v1/transactions/status?hash=${tx.txHash}&chainId=1`), 400, 'INVALID_CHAIN');
    expect((await server.call('GET', `/api/v1/transactions/${tx.txHash}?chainId=8453`)).status).toBe(200);
  });

  it('answers an unknown hash with 404 NOT_FOUND on both paths, or by submittedAt PENDING (recent) or DROPPED (old), echoing the labels', async () => {
    expectProblem(await server.call('GET', `/api/v1/transactions/${UNKNOWN_HASH}`), 404, 'NOT_FOUND');
    expectProblem(await server.call('GET', `/api/agent/v1/transactions/status?hash=${UNKNOWN_HASH}`), 404, 'NOT_FOUND');
    const now = Date.now();
    const recent = new Date(now - 60_000).toISOString();
    const old = new Date(now - 11 * 60_000).toISOString();
    const pending = await server.call('GET', `/api/v1/transactions/${UNKNOWN_HASH}?submittedAt=${recent}&operationId=op-7&idempotencyKey=k-7`);
    expect(pending.status, pending.text).toBe(200);
    expect(pending.body).toMatchObject({ state: 'PENDING', txHash: UNKNOWN_HASH, operationId: 'op-7', idempotencyKey: 'k-7', receipt: null, blockNumber: null });
    const dropped = await server.call('GET', `/api/agent/v1/transactions/status?hash=${UNKNOWN_HASH}&submittedAt=${old}`);
    expect([dropped.status, dropped.body.state]).toEqual([200, 'DROPPED']);
  });
});

describe('transaction status with the chain node unreachable', () => {
  let server: TestServer;
  let hash: Hex;

  beforeAll(async () => {
    server = await startTestServer({ ownChain: true }); // it stops the node
    const tx = await server.runtime.relayer.send({
      operationId: 'test:unreachable:1',
      idempotencyKey: 'unreachable-1',
      to: server.runtime.deployments.ParticipationToken!.address,
      data: transferData(1n),
    });
    hash = tx.txHash;
    expect((await server.call('GET', `/api/v1/transactions/${hash}`)).status).toBe(200);
    await server.runtime.anvil!.stop();
  });
  afterAll(async () => server?.close());

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After on both interfaces', async () => {
    for (const url of [`/api/v1/transactions/${hash}`, `/api/agent/v1/transactions/status?hash=${hash}`, `/api/v1/transactions/${UNKNOWN_HASH}`]) {
      const res = await server.call('GET', url);
      expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after'], url).toMatch(/^[0-9]+$/);
    }
  });

  it('answers 503 on chain discovery and reports degraded health', async () => {
    const key = await server.key('read-only');
    const chains = await server.call('GET', '/api/agent/v1/discover/chains', { key });
    expectProblem(chains, 503, 'SERVICE_UNAVAILABLE');
    expect(chains.headers['retry-after']).toMatch(/^[0-9]+$/);

    const health = await server.call('GET', '/api/agent/v1/health');
    expect(String(health.headers['content-type'])).toContain('application/json');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'degraded', database: { ok: true }, chain: { ok: false, headBlock: null, chainId: 8453 } });
  });

  it('still validates input before touching the node', async () => {
    expectProblem(await server.call('GET', '/api/v1/transactions/0x1234'), 400, 'INVALID_PAYLOAD');
    expectProblem(await server.call('GET', `/api/v1/transactions/${hash}?chainId=1`), 400, 'INVALID_CHAIN');
  });

  it('closes cleanly although anvil is already stopped', async () => {
    await expect(server.close()).resolves.toBeUndefined();
    await expect(server.runtime.anvil!.stop()).resolves.toBeUndefined();
  });
});
