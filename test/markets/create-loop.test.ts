// The create loop end to end with a wallet-registered agent: preflight, propose (with and without a counter),
// accept or reject, prepare-deploy, the wallet signing the approvals and the factory transaction with viem,
// commit-deploy, and the events it emits. Real chain, real database, nothing mocked.
import { parseUnits, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_LIQUIDITY } from '../../src/core/markets/fees.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { approvalCalldata } from '../../src/services/markets/approvals.ts';
import { createMarket, fund, gas, post, sendApprovals, sendTx, terms } from '../support/markets.ts';

let server: TestServer;
let clock: ManualClock;
beforeAll(async () => {
  clock = new ManualClock(new Date());
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

async function creator(opts: { funded?: boolean } = {}) {
  const agent = await registerWallet(server);
  await gas(server, agent.account.address);
  if (opts.funded !== false) await fund(server, agent.account.address);
  return agent;
}

const eventsOf = (type: string) => server.runtime.database.db.selectFrom('events').selectAll().where('type', '=', type).orderBy('seq').execute();

describe('POST /negotiate/preflight', () => {
  it('answers every problem at once with the counter values, what a deploy charges, and the missing approvals', async () => {
    const agent = await creator({ funded: false });
    const res = await post(server, agent.key, '/negotiate/preflight', terms({ liquidity: '5', creatorFeeBps: 900, closeTime: new Date(clock.now().getTime() + 60_000).toISOString() }));
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(false);
    expect(res.body.problems.map((p: { code: string }) => p.code).sort()).toEqual(['CLOSE_TIME_TOO_SOON', 'CREATOR_FEE_OUT_OF_RANGE', 'LIQUIDITY_BELOW_FLOOR']);
    expect(res.body.problems.find((p: { code: string }) => p.code === 'LIQUIDITY_BELOW_FLOOR').counter).toBe(MIN_LIQUIDITY.USDC.toString());
    expect(res.body.problems.find((p: { code: string }) => p.code === 'CREATOR_FEE_OUT_OF_RANGE').counter).toBe(300);
    expect(res.body.charges.bond.amount).toBe(parseUnits('100', 18).toString());
    // Two tokens pulled (USDC subsidy, PM bond): two approvals missing, two balances short for an unfunded wallet.
    expect(res.body.approvalsMissing).toHaveLength(2);
    expect(res.body.balancesShort).toHaveLength(2);
    expect(res.body.approvalsMissing.every((a: { spender: string }) => a.spender === res.body.charges.factory)).toBe(true);
    expect(res.body.liveMarkets).toEqual({ count: 0, max: 20 });
  });

  it('refuses bad input with INVALID_PAYLOAD: outcome count, category, collateral, unknown fields', async () => {
    const agent = await creator({ funded: false });
    for (const bad of [
      terms({ outcomes: ['Only one'] }),
      terms({ outcomes: ['A', 'B', 'C', 'D'] }),
      terms({ outcomes: ['Yes', 'yes'] }),
      terms({ category: 'WEATHER' }),
      terms({ collateral: 'DOGE' }),
      terms({ question: 'short' }),
      terms({ liquidity: '-1' }),
      { ...terms(), color: 'blue' },
    ]) {
      const res = await post(server, agent.key, '/negotiate/preflight', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.code).toBe('INVALID_PAYLOAD');
    }
    expect((await post(server, agent.key, '/negotiate/preflight', terms({ chainId: 1 }))).body.code).toBe('UNSUPPORTED_CHAIN');
  });

  it('needs a bound wallet and the propose tier', async () => {
    const readOnly = await server.key('read-only');
    expect((await post(server, readOnly, '/negotiate/preflight', terms())).body.code).toBe('INSUFFICIENT_TIER');
    const operatorKey = await server.key('propose');
    expect((await post(server, operatorKey, '/negotiate/preflight', terms())).body.code).toBe('FORBIDDEN');
  });
});

describe('the create loop', () => {
  it('proposes, accepts, prepares, deploys with the wallet and registers the market with market.created and market.live', async () => {
    const agent = await creator();
    const proposed = await post(server, agent.key, '/negotiate/propose', terms({ externalId: 'ext-1' }));
    expect(proposed.status).toBe(201);
    expect(proposed.body.negotiation.status).toBe('proposed');
    expect(proposed.body.negotiation.counter).toBeNull();
    const id = proposed.body.negotiation.id;

    // prepare-deploy before accept is refused.
    expect((await post(server, agent.key, `/negotiate/${id}/prepare-deploy`)).body.code).toBe('NEGOTIATION_STATE');
    expect((await post(server, agent.key, `/negotiate/${id}/accept`)).body.negotiation.status).toBe('accepted');
    // Accepting again answers it unchanged.
    expect((await post(server, agent.key, `/negotiate/${id}/accept`)).body.negotiation.status).toBe('accepted');

    const prepared = await post(server, agent.key, `/negotiate/${id}/prepare-deploy`);
    expect(prepared.status).toBe(200);
    expect(prepared.body.ready).toBe(false);
    expect(prepared.body.transaction).toMatchObject({ chainId: 8453, from: agent.account.address, to: prepared.body.charges.factory, value: '0' });
    await sendApprovals(server, agent.account, prepared.body.approvalsMissing);
    const ready = await post(server, agent.key, `/negotiate/${id}/prepare-deploy`);
    expect(ready.body.ready).toBe(true);
    expect(ready.body.approvalsMissing).toEqual([]);

    const before = (await eventsOf('market.live')).length;
    const receipt = await sendTx(server, agent.account, ready.body.transaction);
    expect(receipt.status).toBe('success');
    const committed = await post(server, agent.key, `/negotiate/${id}/commit-deploy`, { txHash: receipt.transactionHash });
    expect(committed.status).toBe(200);
    const market = committed.body.market;
    expect(market.address).toBe(ready.body.predictedMarketAddress);
    expect(market).toMatchObject({ state: 'open', isTradeable: true, question: terms().question, category: 'TECH', outcomeCount: 2, externalId: 'ext-1', creator: agent.account.address });
    expect(market.outcomes.map((o: { price: string }) => o.price)).toEqual(['0.5', '0.5']);
    expect(committed.body.negotiation).toMatchObject({ status: 'deployed', marketAddress: market.address.toLowerCase(), deployTxHash: receipt.transactionHash });

    const live = await eventsOf('market.live');
    expect(live.length).toBe(before + 1);
    expect(live.at(-1)).toMatchObject({ market_address: market.address.toLowerCase(), payload: { question: market.question, creatorAddress: agent.account.address.toLowerCase() } });
    expect((await eventsOf('market.created')).at(-1)).toMatchObject({ market_address: market.address.toLowerCase(), payload: { question: market.question, category: 'TECH' } });

    // Committing the same hash again answers the same market; the indexer confirms it without a second event.
    expect((await post(server, agent.key, `/negotiate/${id}/commit-deploy`, { txHash: receipt.transactionHash })).body.market.address).toBe(market.address);
    await server.runtime.services.indexer.syncNow();
    expect((await eventsOf('market.live')).length).toBe(before + 1);
    const row = await server.runtime.database.db.selectFrom('markets').selectAll().where('address', '=', market.address.toLowerCase()).executeTakeFirstOrThrow();
    expect(row.confirmed).toBe(true);

    // The externalId is taken: preflight returns the existing market, propose the existing negotiation.
    const again = await post(server, agent.key, '/negotiate/preflight', terms({ externalId: 'ext-1' }));
    expect(again.body.existingMarket.address).toBe(market.address);
    expect(again.body.ok).toBe(false);
    const dup = await post(server, agent.key, '/negotiate/propose', terms({ externalId: 'ext-1' }));
    expect(dup.status).toBe(200);
    expect(dup.body).toMatchObject({ existing: true, negotiation: { id } });
  });

  it('counters terms outside the schedule, emits negotiation.countered to the agent, and deploys on the counter', async () => {
    const agent = await creator();
    const res = await post(server, agent.key, '/negotiate/propose', terms({ liquidity: '1000', creatorFeeBps: 450, collateral: 'PM', outcomes: ['Red', 'Green', 'Blue'] }));
    expect(res.status).toBe(201);
    const n = res.body.negotiation;
    expect(n.status).toBe('countered');
    expect(n.terms.liquidity).toBe(MIN_LIQUIDITY.PM.toString());
    expect(n.terms.creatorFeeBps).toBe(300);
    expect(n.proposedTerms.liquidity).toBe('1000');
    expect(n.counter).toEqual(
      expect.arrayContaining([
        { field: 'liquidity', proposed: '1000', countered: MIN_LIQUIDITY.PM.toString(), rule: 'LIQUIDITY_BELOW_FLOOR' },
        { field: 'creatorFeeBps', proposed: 450, countered: 300, rule: 'CREATOR_FEE_OUT_OF_RANGE' },
      ]),
    );
    const countered = (await eventsOf('negotiation.countered')).at(-1)!;
    expect(countered.agent_id).toBe(agent.agentId);
    expect(countered.payload).toMatchObject({ negotiationId: n.id });

    await post(server, agent.key, `/negotiate/${n.id}/accept`);
    const prepared = await post(server, agent.key, `/negotiate/${n.id}/prepare-deploy`);
    // PM is both the collateral and the bond token: one approval covering subsidy + bond.
    expect(prepared.body.approvalsMissing).toHaveLength(1);
    expect(BigInt(prepared.body.approvalsMissing[0].amount)).toBe(BigInt(prepared.body.charges.subsidy.amount) + BigInt(prepared.body.charges.bond.amount));
    await sendApprovals(server, agent.account, prepared.body.approvalsMissing);
    const receipt = await sendTx(server, agent.account, (await post(server, agent.key, `/negotiate/${n.id}/prepare-deploy`)).body.transaction);
    const committed = await post(server, agent.key, `/negotiate/${n.id}/commit-deploy`, { txHash: receipt.transactionHash });
    expect(committed.body.market).toMatchObject({ outcomeCount: 3, fees: { creatorFeeBps: 300 }, liquidity: MIN_LIQUIDITY.PM.toString(), collateral: { symbol: 'PM' } });
    expect(committed.body.market.outcomes.map((o: { label: string }) => o.label)).toEqual(['Red', 'Green', 'Blue']);
  });

  it('commit-deploy refuses a transaction that did not create this market, a reverted one, and an unknown hash', async () => {
    const agent = await creator();
    const id = (await post(server, agent.key, '/negotiate/propose', terms())).body.negotiation.id;
    await post(server, agent.key, `/negotiate/${id}/accept`);
    const prepared = await post(server, agent.key, `/negotiate/${id}/prepare-deploy`);
    // Without approvals the factory call reverts (gas given, so viem does not refuse to send it).
    const reverted = await sendTx(server, agent.account, prepared.body.transaction, { gas: 1_000_000n });
    expect(reverted.status).toBe('reverted');
    expect((await post(server, agent.key, `/negotiate/${id}/commit-deploy`, { txHash: reverted.transactionHash })).body.code).toBe('DEPLOY_TX_REVERTED');
    const approval = await sendTx(server, agent.account, { to: prepared.body.approvalsMissing[0].token as Address, data: approvalCalldata({ kind: 'erc20_approve', spender: agent.account.address, amount: '1' }) });
    expect(approval.status).toBe('success');
    expect((await post(server, agent.key, `/negotiate/${id}/commit-deploy`, { txHash: approval.transactionHash })).body.code).toBe('DEPLOY_TX_MISMATCH');
    expect((await post(server, agent.key, `/negotiate/${id}/commit-deploy`, { txHash: `0x${'ab'.repeat(32)}` })).body.code).toBe('NOT_FOUND');
    expect((await post(server, agent.key, `/negotiate/${id}/commit-deploy`, { txHash: 'nope' })).body.code).toBe('INVALID_PAYLOAD');
  });

  it('reject ends a negotiation; other agents cannot see or settle it; unknown ids are 404', async () => {
    const agent = await creator({ funded: false });
    const other = await creator({ funded: false });
    const id = (await post(server, agent.key, '/negotiate/propose', terms({ externalId: 'reusable' }))).body.negotiation.id;
    expect((await post(server, other.key, `/negotiate/${id}/accept`)).body.code).toBe('NEGOTIATION_NOT_FOUND');
    expect((await server.call('GET', `/api/agent/v1/negotiate/${id}`, { key: other.key })).body.code).toBe('NEGOTIATION_NOT_FOUND');
    expect((await post(server, agent.key, `/negotiate/${id}/reject`)).body.negotiation.status).toBe('rejected');
    expect((await post(server, agent.key, `/negotiate/${id}/accept`)).body.code).toBe('NEGOTIATION_STATE');
    expect((await server.call('GET', `/api/agent/v1/negotiate/${id}`, { key: agent.key })).body.negotiation.status).toBe('rejected');
    // The externalId is free again after a rejection.
    expect((await post(server, agent.key, '/negotiate/propose', terms({ externalId: 'reusable' }))).body.existing).toBe(false);
    expect((await post(server, agent.key, `/negotiate/00000000-0000-4000-8000-000000000000/accept`)).body.code).toBe('NEGOTIATION_NOT_FOUND');
    expect((await server.call('GET', '/api/agent/v1/negotiate/not-a-uuid', { key: agent.key })).body.code).toBe('INVALID_ID');
  });

  it('a negotiation expires after 24 hours', async () => {
    const agent = await creator({ funded: false });
    const id = (await post(server, agent.key, '/negotiate/propose', terms({ closeTime: new Date(clock.now().getTime() + 30 * 86_400_000).toISOString() }))).body.negotiation.id;
    clock.advance(24 * 3_600_000 - 1_000);
    expect((await post(server, agent.key, `/negotiate/${id}/accept`)).body.negotiation.status).toBe('accepted');
    clock.advance(1_000);
    expect((await post(server, agent.key, `/negotiate/${id}/prepare-deploy`)).body.code).toBe('NEGOTIATION_EXPIRED');
  });

  it('refuses a 21st live market for one creator (LIVE_MARKET_CAP_REACHED)', async () => {
    const agent = await creator();
    const first = await createMarket(server, agent.key, agent.account, { closeTime: new Date(clock.now().getTime() + 7 * 86_400_000).toISOString() });
    // Nineteen more live markets of this creator, as the projection would hold them.
    const db = server.runtime.database.db;
    const row = await db.selectFrom('markets').selectAll().where('address', '=', first.market.address.toLowerCase()).executeTakeFirstOrThrow();
    const { id: _id, listed: _listed, ...rest } = row;
    for (let i = 0; i < 19; i++) {
      await db
        .insertInto('markets')
        // confirmed: the indexer would otherwise cancel them as creations it never saw on chain.
        .values({ ...rest, confirmed: true, address: `0x${(i + 1).toString(16).padStart(40, 'c')}`, external_id: null, outcomes: JSON.stringify(rest.outcomes), controls: JSON.stringify(rest.controls), prices: JSON.stringify(rest.prices), outstanding: JSON.stringify(rest.outstanding) })
        .execute();
    }
    const pre = await post(server, agent.key, '/negotiate/preflight', terms());
    expect(pre.body.problems.map((p: { code: string }) => p.code)).toContain('LIVE_MARKET_CAP_REACHED');
    expect((await post(server, agent.key, '/negotiate/propose', terms())).body.code).toBe('LIVE_MARKET_CAP_REACHED');
  });
});
