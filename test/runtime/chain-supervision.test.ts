// The embedded anvil is supervised: killed (as a crash or the OOM killer would), it is started again on the same port
// and state file, and what its last state dump had not saved is put back on chain (the operator's funding, our
// signed transactions). Before, svc answered 503 "chain node unreachable" until someone restarted it.
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siweMessage } from '../../src/core/siwe.ts';
import { registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
// While set, the supervisor's restart of an exited anvil waits for it: the node stays down while a test looks.
let hold: Promise<void> | null = null;

beforeAll(async () => {
  server = await startTestServer({ ownChain: true, env: { REGISTRATION_PATHS: 'wallet' }, beforeAnvilRestart: () => hold ?? Promise.resolve() });
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

const DEAD = '0x000000000000000000000000000000000000dEaD';

const transfer = (n: number) => ({
  operationId: `test:supervision:${n}`,
  idempotencyKey: `supervision-${n}`,
  to: server.runtime.deployments.ParticipationToken!.address,
  data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [DEAD, BigInt(n)] }) as Hex,
});

describe('the embedded anvil under supervision', () => {
  it('refuses order placements with 503 and Retry-After while the node is down, and takes them once it is back and reconciled', async () => {
    const agent = await registerWallet(server, undefined, 'supervised-trader');
    await gas(server, agent.account.address);
    const market = await createOrderBookMarket(server, agent, 'Will a supervised chain refuse what it cannot settle?', new Date(Date.now() + 7 * 86_400_000));
    const place = (idempotencyKey: string) =>
      server.call('POST', '/api/agent/v1/orderbook/place-order', { key: agent.key, idempotencyKey, body: { market: market.address, outcome: 0, action: 'buy', price: '0.4', shares: '10000000' } });
    expect((await place('before-the-kill')).status).toBe(201);
    const { nonce } = (await server.call('POST', '/api/auth/nonce')).body;
    const message = siweMessage({ publicBaseUrl: server.config.publicBaseUrl, chainId: server.config.chain.id }, { address: agent.account.address, nonce, issuedAt: server.runtime.clock.now() });
    const session = (await server.call('POST', '/api/auth/verify', { body: { message, signature: await agent.account.signMessage({ message }), returnToken: true } })).body.token as string;

    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    const pid = server.runtime.anvil!.pid;
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !server.runtime.services.chain.liveness().up, { what: 'the chain to be reported down' });

    const refused = await place('while-down');
    expect(refused.status, refused.text).toBe(503);
    expect(refused.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body.chainDownSince).toEqual(expect.any(String));
    // A relay purchase of PM is refused the same way; the participation release reports its route degraded.
    const relay = await server.call('POST', '/api/v1/economy/relay-purchase', {
      key: agent.key,
      idempotencyKey: 'relay-while-down',
      headers: { 'Svc-Wallet-Session': session },
      body: { paymentAmount: '5000000', minPmOut: '1', deadline: 4_000_000_000, v: 27, r: `0x${'1'.repeat(64)}`, s: `0x${'2'.repeat(64)}` },
    });
    expect(relay.status, relay.text).toBe(503);
    expect(relay.body.code).toBe('SERVICE_UNAVAILABLE');
    const release_ = await server.call('GET', '/api/agent/v1/participation-release', { key: agent.key });
    expect(release_.status, release_.text).toBe(200);
    expect(release_.body.deployment).toMatchObject({ state: 'degraded', claimEnabled: false, reasonCode: 'PARTICIPATION_ROUTE_DEGRADED' });
    const health = await server.call('GET', '/api/agent/v1/health');
    expect(health.body.status).toBe('degraded');
    expect(health.body.chain.ok).toBe(false);
    // Nothing was claimed: the key is free for the retry the 503 asks for.
    const claimed = await server.runtime.database.db.selectFrom('idempotency_records').select('idem_key').where('idem_key', '=', 'while-down').execute();
    expect(claimed).toEqual([]);

    hold = null;
    release();
    await waitFor(() => server.runtime.anvil!.pid !== pid && server.runtime.services.chain.liveness().up, { timeoutMs: 30_000, what: 'the restarted node to be reconciled' });
    // The retry with the same key runs (nothing was stored under it). The market may not have survived: it is the
    // agent's own transaction, which no reconciliation replays, and a kill while anvil writes its state file leaves
    // it starting on an empty chain (docs/chain.md); then the order is refused as a market's, never as the key's.
    const retried = await place('while-down');
    expect([201, 409], retried.text).toContain(retried.status);
    if (retried.status === 409) expect(retried.body.code).toBe('MARKET_NOT_TRADEABLE');
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect((await server.call('GET', '/api/agent/v1/health')).body.chain.ok).toBe(true);
    // Chain-dependent writes are taken again: a new market, a new order.
    await gas(server, agent.account.address);
    const again = await createOrderBookMarket(server, agent, 'Will the chain take orders again once it is back?', new Date(Date.now() + 7 * 86_400_000));
    const placed = await server.call('POST', '/api/agent/v1/orderbook/place-order', { key: agent.key, idempotencyKey: 'after-recovery', body: { market: again.address, outcome: 0, action: 'buy', price: '0.4', shares: '10000000' } });
    expect(placed.status, placed.text).toBe(201);
  });

  it('comes back on the same port after a SIGKILL, with every operator transaction the database holds', async () => {
    const { relayer, anvil, operator } = server.runtime;
    const client = server.runtime.services.chain.client;
    const pm = server.runtime.deployments.ParticipationToken!.address;
    const burned = () => client.readContract({ address: pm, abi: erc20Abi, functionName: 'balanceOf', args: [DEAD] });
    const before = { pid: anvil!.pid, port: anvil!.port, burned: await burned() };
    const sent = [await relayer.send(transfer(1)), await relayer.send(transfer(2))];
    expect(sent.map((t) => t.state)).toEqual(['confirmed', 'confirmed']);

    // Killed at once: its last state dump (once a second) may hold everything, part of it, or nothing yet (then even the
    // deployments and the operator's funding are gone, and svc funds it again and replays every operator transaction).
    process.kill(before.pid, 'SIGKILL');
    await waitFor(() => !alive(before.pid), { what: `anvil ${before.pid} to die` });
    await waitFor(async () => anvil!.pid !== before.pid && (await client.getBlockNumber({ cacheTime: 0 })) >= 0n, { timeoutMs: 30_000, what: 'anvil to be restarted' });
    expect(anvil!.port).toBe(before.port);

    // Both transfers are in the restarted chain's state, kept by its last dump or replayed from their signed bytes.
    const state = async () => ({
      nonce: await client.getTransactionCount({ address: operator, blockTag: 'latest' }),
      pending: await client.getTransactionCount({ address: operator, blockTag: 'pending' }),
      burned: await burned(),
      rows: await server.runtime.database.db.selectFrom('relayer_transactions').select(['operation_id', 'nonce', 'state']).orderBy('nonce', 'desc').limit(8).execute(),
    });
    try {
      await waitFor(async () => (await client.getTransactionCount({ address: operator, blockTag: 'latest' })) > sent[1]!.nonce && (await burned()) === before.burned + 3n, {
        timeoutMs: 30_000,
        what: 'both transfers to be in the restarted chain',
      });
    } catch (err) {
      throw new Error(`${(err as Error).message}; chain and records: ${JSON.stringify(await state(), (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}; sent nonces ${sent.map((t) => t.nonce)}`);
    }
    expect(await relayer.send(transfer(3))).toMatchObject({ state: 'confirmed' });
    // Health follows the liveness probe, which may still be reconciling the restarted node: it must come back to 200.
    let health = await server.call('GET', '/api/agent/v1/health');
    await waitFor(async () => (health = await server.call('GET', '/api/agent/v1/health')).status === 200, { timeoutMs: 30_000, what: `health to be 200 again (last: ${health.text})` });
  });

  it('a deliberate stop is not restarted', async () => {
    const pid = server.runtime.anvil!.pid;
    await server.runtime.anvil!.stop();
    expect(alive(pid)).toBe(false);
    expect(server.runtime.anvil!.pid).toBe(pid);
  });
});
