// Exactly once under an Idempotency-Key for the create loop and the order book's other writes: propose (with and
// without externalId), accept, reject, commit-deploy (both lanes), cancel-order and the fill-pack purchase each
// record their effect in the transaction that makes it. A crash after that commit leaves the key committed: every
// retry, before and after the 60 s lease, answers the effect as a replay instead of running the write again (a
// second negotiation, existing: true, NEGOTIATION_STATE, PAYMENT_ALREADY_CLAIMED…). A crash inside that
// transaction leaves nothing, and the retry runs once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parseUnits, type Hex } from 'viem';
import { ManualClock } from '../../src/core/clock.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { fund, gas, sendApprovals, sendTx, terms } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';

const A = '/api/agent/v1';
const clock = new ManualClock(new Date());
let server: TestServer;

/** The Idempotency-Key whose request "crashes" at each point, once. */
const crashAt: { duringEffect: string | null; beforeComplete: string | null } = { duringEffect: null, beforeComplete: null };
const crashOnce = (point: keyof typeof crashAt) => (_principal: string, key: string) => {
  if (crashAt[point] !== key) return;
  crashAt[point] = null;
  throw new Error(`simulated crash (${point})`);
};

beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: {
      REGISTRATION_PATHS: 'wallet',
      TRUST_PROXY: 'true',
      LEDGER_BATCH_INTERVAL_MS: '3600000',
      // The indexer registers creations only when a commit kicks it: a creation rolled back stays unregistered.
      INDEXER_POLL_MS: '60000',
      FILL_PACKS: '3:500',
      FILL_PACK_CONFIRMATIONS: '1',
    },
    idempotencyFaults: { duringEffect: crashOnce('duringEffect'), beforeComplete: crashOnce('beforeComplete') },
  });
});
afterAll(async () => server?.close());

type Agent = Awaited<ReturnType<typeof registerWallet>>;
const db = () => server.runtime.database.db;

/** A keyed write ready to run, and how to read what it did. */
interface KeyedWrite {
  /** Sends the write under `idempotencyKey`. */
  send: (idempotencyKey: string) => Promise<CallResult>;
  /** The status of its answer. */
  status: 200 | 201;
  /** Its answer's body as the reads show it now: what the first answer was (or would have been). */
  expected: () => Promise<unknown>;
  /** What the database holds of its effect. */
  effects: () => Promise<unknown>;
  /** `effects()` once the write has run once. */
  once: unknown;
  /** The effect_ref its key records, read from the answer. */
  refOf: (body: CallResult['body']) => string;
}

async function creator(opts: { gas?: boolean; fund?: boolean } = {}): Promise<Agent> {
  const agent = await registerWallet(server, undefined, 'exactly-once-writes');
  if (opts.gas || opts.fund) await gas(server, agent.account.address);
  if (opts.fund) await fund(server, agent.account.address);
  return agent;
}

/** A setup step, under a key of its own. */
async function step(agent: Agent, path: string, body?: unknown): Promise<CallResult> {
  const res = await server.call('POST', `${A}${path}`, { key: agent.key, body, idempotencyKey: idemKey('setup') });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res;
}

const keyed = (agent: Agent, path: string, body?: unknown) => (idempotencyKey: string) => server.call('POST', `${A}${path}`, { key: agent.key, body, idempotencyKey, unchecked: true });
const negotiationOf = async (agent: Agent, id: string) => (await server.call('GET', `${A}/negotiate/${id}`, { key: agent.key })).body.negotiation;
const statusesOf = async (agent: Agent) => (await db().selectFrom('negotiations').select('status').where('agent_id', '=', agent.agentId).execute()).map((n) => n.status);

function propose(externalId?: string): () => Promise<KeyedWrite> {
  return async () => {
    const agent = await creator();
    const negotiations = () => db().selectFrom('negotiations').select('id').where('agent_id', '=', agent.agentId).execute();
    return {
      send: keyed(agent, '/negotiate/propose', terms(externalId ? { externalId } : {})),
      status: 201,
      expected: async () => ({ negotiation: await negotiationOf(agent, (await negotiations())[0]!.id), existing: false }),
      effects: async () => (await negotiations()).length,
      once: 1,
      refOf: (body) => body.negotiation.id,
    };
  };
}

function settle(action: 'accept' | 'reject', to: string): () => Promise<KeyedWrite> {
  return async () => {
    const agent = await creator();
    const id = (await step(agent, '/negotiate/propose', terms())).body.negotiation.id as string;
    return {
      send: keyed(agent, `/negotiate/${id}/${action}`),
      status: 200,
      expected: async () => ({ negotiation: await negotiationOf(agent, id) }),
      effects: () => statusesOf(agent),
      once: [to],
      refOf: (body) => body.negotiation.id,
    };
  };
}

/** An accepted negotiation whose factory transaction the agent's wallet has sent and mined; commit-deploy is left. */
function commitDeploy(lane: 'automated' | 'ORDERBOOK'): () => Promise<KeyedWrite> {
  return async () => {
    const agent = await creator({ gas: true, fund: lane === 'automated' });
    const proposal =
      lane === 'automated'
        ? terms()
        : { question: `Will the order-book commit hold exactly once (${idemKey('q')})?`, category: 'TECH', pricingModel: 'ORDERBOOK', closeTime: new Date(clock.now().getTime() + 7 * 86_400_000).toISOString(), resolutionSource: 'https://example.org/resolution' };
    const id = (await step(agent, '/negotiate/propose', proposal)).body.negotiation.id as string;
    await step(agent, `/negotiate/${id}/accept`);
    let prepared = (await step(agent, `/negotiate/${id}/prepare-deploy`)).body;
    if (prepared.approvalsMissing.length > 0) {
      await sendApprovals(server, agent.account, prepared.approvalsMissing);
      prepared = (await step(agent, `/negotiate/${id}/prepare-deploy`)).body;
    }
    const receipt = await sendTx(server, agent.account, prepared.transaction);
    expect(receipt.status).toBe('success');
    const creatorAddress = agent.account.address.toLowerCase();
    const markets = () => db().selectFrom('markets').select('address').where('creator', '=', creatorAddress).execute();
    return {
      send: keyed(agent, `/negotiate/${id}/commit-deploy`, { txHash: receipt.transactionHash }),
      status: 200,
      expected: async () => {
        const negotiation = await negotiationOf(agent, id);
        return { negotiation, market: (await server.call('GET', `${A}/discover/markets/${negotiation.marketAddress}`, { key: agent.key })).body.market };
      },
      effects: async () => {
        const addresses = (await markets()).map((m) => m.address);
        const live = addresses.length === 0 ? [] : await db().selectFrom('events').select('seq').where('type', '=', 'market.live').where('market_address', 'in', addresses).execute();
        return { markets: addresses.length, marketLive: live.length, negotiation: await statusesOf(agent) };
      },
      once: { markets: 1, marketLive: 1, negotiation: ['deployed'] },
      refOf: (body) => body.negotiation.id,
    };
  };
}

/** A resting order of the agent on a fresh order-book market; cancel-order is left. */
async function cancelOrder(): Promise<KeyedWrite> {
  const agent = await creator({ gas: true });
  const market = await createOrderBookMarket(server, agent, `Will the cancel hold exactly once (${idemKey('q')})?`, new Date(clock.now().getTime() + 7 * 86_400_000));
  const placed = await step(agent, '/orderbook/place-order', { market: market.address, outcome: 0, action: 'buy', price: '0.4', shares: '10000000' });
  const orderId = placed.body.id as string;
  return {
    send: keyed(agent, '/orderbook/cancel-order', { orderId }),
    status: 200,
    expected: async () => JSON.parse(JSON.stringify(await server.runtime.services.orderbook.view(orderId))),
    effects: async () => {
      const cancelled = await db()
        .selectFrom('events')
        .select('agent_seq')
        .where('type', '=', 'execution:report')
        .where(sql<boolean>`payload->>'orderId' = ${orderId} AND payload->>'type' = 'cancelled'`)
        .execute();
      const order = await db().selectFrom('orders').select(['status', 'reserved']).where('id', '=', orderId).executeTakeFirstOrThrow();
      return { cancelledEvents: cancelled.length, status: order.status, reserved: String(order.reserved) };
    },
    once: { cancelledEvents: 1, status: 'cancelled', reserved: '0' },
    refOf: (body) => body.id,
  };
}

/** A mined USDC transfer from the agent's wallet that pays the 3-fill pack; the purchase is left. */
async function purchaseFillPack(): Promise<KeyedWrite> {
  const agent = await creator({ gas: true });
  await fund(server, agent.account.address, { usdc: parseUnits('100', 6), pm: 0n });
  const [pack] = (await server.call('GET', `${A}/orderbook/fill-packs`, { key: agent.key })).body.packs;
  const paid = await sendTx(server, agent.account, pack.transaction);
  expect(paid.status).toBe('success');
  const txHash = paid.transactionHash.toLowerCase() as Hex;
  const purchases = () => db().selectFrom('fill_pack_purchases').selectAll().where('tx_hash', '=', txHash).execute();
  return {
    send: keyed(agent, '/orderbook/fill-packs/purchase', { fills: 3, txHash }),
    status: 201,
    expected: async () => {
      const [p] = await purchases();
      const purchase = { id: p!.id, fills: 3, usdCents: 500, chainId: p!.chain_id, txHash, logIndex: p!.log_index, payer: p!.payer, token: p!.token, amount: '5000000', createdAt: p!.created_at.toISOString() };
      return { purchase, fills: (await server.call('GET', `${A}/me`, { key: agent.key })).body.fills };
    },
    effects: async () => {
      const paidFills = await db().selectFrom('agents').select('paid_fills_remaining').where('id', '=', agent.agentId).executeTakeFirstOrThrow();
      return { purchases: (await purchases()).length, paidFills: paidFills.paid_fills_remaining };
    },
    once: { purchases: 1, paidFills: 3 },
    refOf: (body) => body.purchase.id,
  };
}

const WRITES: { name: string; setup: () => Promise<KeyedWrite> }[] = [
  { name: 'POST /negotiate/propose', setup: propose() },
  { name: 'POST /negotiate/propose with an externalId', setup: propose('exactly-once') },
  { name: 'POST /negotiate/:id/accept', setup: settle('accept', 'accepted') },
  { name: 'POST /negotiate/:id/reject', setup: settle('reject', 'rejected') },
  { name: 'POST /negotiate/:id/commit-deploy (automated)', setup: commitDeploy('automated') },
  { name: 'POST /negotiate/:id/commit-deploy (ORDERBOOK)', setup: commitDeploy('ORDERBOOK') },
  { name: 'POST /orderbook/cancel-order', setup: cancelOrder },
  { name: 'POST /orderbook/fill-packs/purchase', setup: purchaseFillPack },
];

describe('a crash after the effect committed and before its answer was stored', () => {
  it.each(WRITES)('$name: one effect; every retry answers it as a replay, before and after the lease', async ({ setup }) => {
    const write = await setup();
    const key = idemKey('crash-after');
    crashAt.beforeComplete = key;
    const crashed = await write.send(key);
    expect(crashed.status).toBe(500);
    expect(crashed.body.code).toBe('INTERNAL_ERROR');
    expect(await write.effects()).toEqual(write.once);

    const retry = await write.send(key);
    expect(retry.status, retry.text).toBe(write.status);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(await write.expected());

    clock.advance(61_000); // past the lease after which a crashed claim used to be run again
    const late = await write.send(key);
    expect(late.status, late.text).toBe(write.status);
    expect(late.headers['idempotent-replayed']).toBe('true');
    expect(late.body).toEqual(retry.body);
    expect(await write.effects()).toEqual(write.once);
    const record = await db().selectFrom('idempotency_records').select(['state', 'effect_ref']).where('idem_key', '=', key).executeTakeFirstOrThrow();
    expect(record).toEqual({ state: 'done', effect_ref: write.refOf(retry.body) });
  });
});

describe('a crash inside the effect transaction', () => {
  it.each(WRITES)('$name: nothing remains, and the retry runs once', async ({ setup }) => {
    const write = await setup();
    const before = await write.effects();
    const key = idemKey('crash-during');
    crashAt.duringEffect = key;
    const crashed = await write.send(key);
    expect(crashed.status).toBe(500);
    expect(crashed.body.code).toBe('INTERNAL_ERROR');
    expect(await write.effects()).toEqual(before);

    const retry = await write.send(key);
    expect(retry.status, retry.text).toBe(write.status);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.body).toEqual(await write.expected());
    expect(await write.effects()).toEqual(write.once);
  });
});
