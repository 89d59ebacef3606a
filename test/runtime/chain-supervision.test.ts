// The embedded anvil is supervised: killed (as a crash or the OOM killer would), it is started again on the same port
// and state file, and the operator transactions its state file had not saved yet are put back on chain by the
// relayer. Before, svc answered 503 "chain node unreachable" until someone restarted it.
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ ownChain: true });
});
afterAll(async () => server?.close());

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const transfer = (n: number) => ({
  operationId: `test:supervision:${n}`,
  idempotencyKey: `supervision-${n}`,
  to: server.runtime.deployments.ParticipationToken!.address,
  data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: ['0x000000000000000000000000000000000000dEaD', BigInt(n)] }) as Hex,
});

describe('the embedded anvil under supervision', () => {
  it('comes back on the same port after a SIGKILL, with every operator transaction the database holds', async () => {
    const { relayer, anvil } = server.runtime;
    const client = server.runtime.services.chain.client;
    const sent = [await relayer.send(transfer(1)), await relayer.send(transfer(2))];
    expect(sent.map((t) => t.state)).toEqual(['confirmed', 'confirmed']);
    const before = { pid: anvil!.pid, port: anvil!.port };

    process.kill(before.pid, 'SIGKILL');
    await waitFor(() => !alive(before.pid), { what: `anvil ${before.pid} to die` });
    await waitFor(async () => anvil!.pid !== before.pid && (await client.getBlockNumber({ cacheTime: 0 })) >= 0n, { timeoutMs: 30_000, what: 'anvil to be restarted' });
    expect(anvil!.port).toBe(before.port);

    // Whatever the last state dump missed was rebroadcast with the same bytes: both transfers are on chain.
    await waitFor(async () => (await Promise.all(sent.map((t) => client.getTransactionReceipt({ hash: t.txHash }).then(() => true, () => false)))).every(Boolean), {
      timeoutMs: 30_000,
      what: 'both transfers to be on the restarted chain',
    });
    expect(await relayer.send(transfer(3))).toMatchObject({ state: 'confirmed' });
    const health = await server.call('GET', '/api/agent/v1/health');
    expect(health.status).toBe(200);
  });

  it('a deliberate stop is not restarted', async () => {
    const pid = server.runtime.anvil!.pid;
    await server.runtime.anvil!.stop();
    expect(alive(pid)).toBe(false);
    expect(server.runtime.anvil!.pid).toBe(pid);
  });
});
