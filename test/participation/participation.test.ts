// The participation release end to end (docs/participation.md), on anvil and the suite's database: a member who
// trades, is verified and known, is credited for each whole active day, prepares a claim and sends the voucher's
// transaction itself, and finalize reconciles it with the chain — paid once, the PM on chain; a forged or mismatched
// finalize is refused and changes nothing. Each reason code the service reaches (and the state it shows) is checked
// through the API; src/core/participation/gates.test.ts covers every code's condition in the gates themselves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, keccak256, parseUnits, toHex, type Address } from 'viem';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { funded, tradeShares, type Agent } from '../support/claims.ts';
import { idemKey } from '../support/agents.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { createMarket, sendTx, tokens } from '../support/markets.ts';

const A = '/api/agent/v1';
const PM = 10n ** 18n;
const DAY = 86_400_000;
const clock = new ManualClock(new Date());
let server: TestServer;
let member: Agent;
let creator: Agent;
let market: string;

beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000' } });
  [creator, member] = await Promise.all([funded(server, 'pr-creator'), funded(server, 'pr-member')]);
  market = (await createMarket(server, creator.key, creator.account)).market.address;
  await server.runtime.services.indexer.syncNow();
});
afterAll(async () => server?.close());

const services = () => server.runtime.services;
const state = async (key: string) => {
  const res = await server.call('GET', `${A}/participation-release`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const expected = () => {
  const p = services().participation.profile();
  return { expectedProfileId: p.profileId, expectedReleaseId: p.releaseId! };
};
const prepare = (key: string, body: Record<string, unknown> = expected()) => server.call('POST', `${A}/participation-release/claim/prepare`, { key, body, idempotencyKey: idemKey('prepare') });
const finalize = (key: string, intentId: string, transactionHash: string) =>
  server.call('POST', `${A}/participation-release/claim/finalize`, { key, body: { ...expected(), intentId, transactionHash } });
const expectReason = (res: CallResult, status: number, code: string) => {
  expect(res.status, res.text).toBe(status);
  expect(res.body.code, res.text).toBe(code);
  expect(res.body.reasonCode).toBe(code);
};
const distributor = () => server.runtime.deployments.ParticipationDistributor!.address as Address;
const pmOf = (who: Address) => services().chain.client.readContract({ address: tokens(server).PM, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
async function asOwner(functionName: string, args: readonly unknown[] = []): Promise<void> {
  const tx = await server.runtime.relayer.send({ operationId: `test:distributor:${functionName}:${idemKey()}`, idempotencyKey: idemKey(), to: distributor(), data: encodeFunctionData({ abi: loadArtifact('ParticipationDistributor').abi, functionName, args } as never) });
  expect(tx.state).toBe('confirmed');
}
const db = () => server.runtime.database.db;

describe('participation release', () => {
  it('shows the deployment, and refuses a key with no agent and an agent that is neither verified nor known', async () => {
    const anonymous = await server.key('execute');
    const s = await state(anonymous);
    expect(s.profile).toMatchObject({ profileId: `pm-${server.config.chain.id}`, stage: 'test', symbol: 'PM', decimals: 18, releaseId: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(s.deployment).toMatchObject({ state: 'active', chainId: server.config.chain.id, claimEnabled: true, reasonCode: 'AGENT_OPERATING_WALLET_NOT_LINKED' });
    expect(s.member).toEqual({ status: 'unknown', role: null, walletAddress: null });
    expectReason(await prepare(anonymous), 409, 'AGENT_OPERATING_WALLET_NOT_LINKED');

    const fresh = await state(member.key);
    expect(fresh.member).toMatchObject({ status: 'inactive', role: 'root', walletAddress: member.account.address.toLowerCase() });
    expect(fresh.deployment.reasonCode).toBe('ACTIVE_VERIFIED_IDENTITY_REQUIRED');
    expect(fresh.lane.state).toBe('unavailable');
    expectReason(await prepare(member.key), 403, 'ACTIVE_VERIFIED_IDENTITY_REQUIRED');

    await services().humans.attest(member.account.address, 'participation test');
    // Verified, but the reputation fold has not met the wallet yet.
    expectReason(await prepare(member.key), 403, 'IDENTITY_INTEGRITY_UNKNOWN');
    // Another release than the one read.
    expectReason(await prepare(member.key, { ...expected(), expectedReleaseId: keccak256(toHex('another')) }), 409, 'PARTICIPATION_RELEASE_INACTIVE');
  });

  it('activates the lane with a qualifying trade and credits each whole active day', async () => {
    await tradeShares(server, member, 'buy', market, 0, parseUnits('20', 6));
    await services().indexer.syncNow();
    await services().leaderboard.runOnce();
    await services().reputation.foldNow();
    const pending = await state(member.key);
    expect(pending.member.status).toBe('active');
    expect(pending.deployment.reasonCode).toBeNull();
    expect(pending.lane.state).toBe('activation_pending');
    expectReason(await prepare(member.key), 409, 'NO_PARTICIPATION_RELEASE_CREDITS');

    clock.advance(2 * DAY);
    expect(await services().participation.creditNow()).toBe(1);
    expect(await services().participation.creditNow()).toBe(0); // once a day
    const active = await state(member.key);
    expect(active.lane.state).toBe('active');
    expect(active.amounts).toMatchObject({ bankedWei: (100n * PM).toString(), confirmedPaidWei: '0', nextEstimatedWei: (100n * PM).toString(), newUnitsExhausted: false });
  });

  it('pays a prepared claim once the chain carries it, and refuses a forged or mismatched finalize', async () => {
    const prepared = await prepare(member.key);
    expect(prepared.status, prepared.text).toBe(200);
    expect(prepared.body.intent).toMatchObject({ status: 'prepared', deliveryMode: 'self_claim' });
    expect(prepared.body.transaction).toMatchObject({ chainId: server.config.chain.id, to: distributor().toLowerCase(), value: '0' });
    const intentId = prepared.body.intent.id as string;
    expectReason(await prepare(member.key), 409, 'PARTICIPATION_DISTRIBUTION_ALREADY_PREPARED');

    // Not mined: pending, and it stays unpaid.
    expectReason(await finalize(member.key, intentId, `0x${'ab'.repeat(32)}`), 409, 'PARTICIPATION_DISTRIBUTION_FINALITY_PENDING');
    // A real transaction that is not this distribution: refused, nothing changes.
    const other = await sendTx(server, member.account, { to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [creator.account.address, 1n] }) });
    expectReason(await finalize(member.key, intentId, other.transactionHash), 422, 'PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH');
    // Another member cannot finalize (or read) it.
    expect((await finalize(creator.key, intentId, other.transactionHash)).status).toBe(404);
    expect((await server.call('GET', `${A}/participation-release/distributions/${intentId}`, { key: creator.key })).status).toBe(404);

    const before = await pmOf(member.account.address);
    const receipt = await sendTx(server, member.account, prepared.body.transaction);
    expect(receipt.status).toBe('success');
    const paid = await finalize(member.key, intentId, receipt.transactionHash);
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.distribution).toMatchObject({ status: 'paid', intentId, transactionHash: receipt.transactionHash, deliveryMode: 'self_claim', recipientRelation: 'self' });
    expect(await pmOf(member.account.address)).toBe(before + 100n * PM);
    // Finalize again: the same answer; with another hash: refused.
    expect((await finalize(member.key, intentId, receipt.transactionHash)).body.distribution.status).toBe('paid');
    expectReason(await finalize(member.key, intentId, other.transactionHash), 422, 'PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH');
    const read = await server.call('GET', `${A}/participation-release/distributions/${intentId}`, { key: member.key });
    expect(read.body.distribution.status).toBe('paid');
    const after = await state(member.key);
    expect(after.amounts).toMatchObject({ bankedWei: '0', confirmedPaidWei: (100n * PM).toString() });
    expect(after.distribution).toMatchObject({ status: 'paid', intentId });

    // Paid a moment ago: the cadence holds the next claim; past it, nothing new was credited.
    expectReason(await prepare(member.key), 429, 'PARTICIPATION_CLAIM_CADENCE_ACTIVE');
    clock.advance(DAY + 1000);
    expectReason(await prepare(member.key), 409, 'PARTICIPATION_DISTRIBUTION_ZERO_DELTA');
  });

  it('marks a voucher that expired with nothing mined unpaid', async () => {
    await services().participation.creditNow();
    const prepared = await prepare(member.key);
    expect(prepared.status, prepared.text).toBe(200);
    clock.advance(server.config.participation.voucherMs + 1000);
    expectReason(await finalize(member.key, prepared.body.intent.id, `0x${'cd'.repeat(32)}`), 409, 'PARTICIPATION_DISTRIBUTION_VOUCHER_EXPIRED');
    expect((await state(member.key)).distribution).toMatchObject({ status: 'unpaid', intentId: prepared.body.intent.id });
  });

  it('reports the route\'s state from the chain and the operator: quarantine, pause, an empty or low inventory, broken accounting, exhausted units', async () => {
    const expectRoute = async (state_: string, code: string, prepareStatus: number) => {
      const s = await state(member.key);
      expect(s.deployment).toMatchObject({ state: state_, reasonCode: code });
      expectReason(await prepare(member.key), prepareStatus, code);
    };
    // The distributor takes another signer's vouchers: this service cannot sign for it.
    await asOwner('setSigner', [creator.account.address]);
    await expectRoute('route_not_deployed', 'PARTICIPATION_RELEASE_ROUTE_NOT_DEPLOYED', 409);
    await asOwner('setSigner', [server.runtime.relayer.address]);

    await services().participation.quarantine(true);
    await expectRoute('quarantined', 'PARTICIPATION_ROUTE_QUARANTINED', 409);
    await services().participation.quarantine(false);

    await asOwner('pause');
    await expectRoute('payment_paused', 'PARTICIPATION_DISTRIBUTION_PAUSED', 409);
    await asOwner('unpause');

    const operator = server.runtime.relayer.address;
    const held = await pmOf(distributor());
    await asOwner('withdraw', [operator, held]);
    await expectRoute('degraded', 'PARTICIPATION_MONEY_PATH_INCOMPLETE', 409);
    // Refilled below the low-water mark, and below what this member is owed.
    await server.runtime.relayer.send({ operationId: `test:refill:${idemKey()}`, idempotencyKey: idemKey(), to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [distributor(), 1n] }) });
    const low = await state(member.key);
    expect(low.deployment).toMatchObject({ state: 'degraded', claimEnabled: true, reasonCode: 'PARTICIPATION_INVENTORY_LOW' });
    expectReason(await prepare(member.key), 409, 'PARTICIPATION_INVENTORY_LOW');
    await server.runtime.relayer.send({ operationId: `test:refill:${idemKey()}`, idempotencyKey: idemKey(), to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [distributor(), held] }) });

    // Credits beyond the pool: the books do not reconcile with what the release was funded with.
    const pool = server.config.participation.poolWei;
    const row = { member_key: '0x000000000000000000000000000000000000dead', day: '2000-01-01', release_id: services().participation.profile().releaseId!, credited_at: clock.now() };
    await db().insertInto('participation_credits').values({ ...row, amount: pool }).execute();
    await expectRoute('degraded', 'PARTICIPATION_LEDGER_ACCOUNTING_INVALID', 409);
    // Within the pool, but less than a daily credit left: no new units, and a member never credited hears so.
    const others = await db().selectFrom('participation_credits').select((eb) => eb.fn.sum<string>('amount').as('total')).where('member_key', '!=', row.member_key).executeTakeFirstOrThrow();
    await db().updateTable('participation_credits').set({ amount: pool - BigInt(others.total) - 50n * PM }).where('member_key', '=', row.member_key).execute();
    const newcomer = await funded(server, 'pr-newcomer');
    await services().humans.attest(newcomer.account.address, 'participation test');
    await tradeShares(server, newcomer, 'buy', market, 0, parseUnits('5', 6));
    await services().indexer.syncNow();
    await services().leaderboard.runOnce();
    await services().reputation.foldNow();
    const s = await state(newcomer.key);
    expect(s.amounts.newUnitsExhausted).toBe(true);
    expect(s.amounts.nextEstimatedWei).toBe('0');
    expectReason(await prepare(newcomer.key), 409, 'NEW_PARTICIPATION_RELEASE_UNITS_EXHAUSTED');
    await db().deleteFrom('participation_credits').where('member_key', '=', row.member_key).execute();
  });

  it('pays a linked member\'s credits to the identity\'s root by protocol push, and calls an intent for its old account stale', async () => {
    const linked = await funded(server, 'pr-linked');
    const root = await funded(server, 'pr-root');
    await services().humans.attest(linked.account.address, 'participation test');
    await tradeShares(server, linked, 'buy', market, 0, parseUnits('20', 6));
    await services().indexer.syncNow();
    await services().leaderboard.runOnce();
    await services().reputation.foldNow();
    clock.advance(2 * DAY);
    await services().participation.creditNow();
    const own = await prepare(linked.key);
    expect(own.status, own.text).toBe(200);
    expect(own.body.intent.deliveryMode).toBe('self_claim');

    // The linked wallet joins the root's identity: its account is the root's from now on.
    const code = (await server.call('POST', `${A}/identity/link-code`, { key: root.key, idempotencyKey: idemKey() })).body.code as string;
    const consent = await server.call('POST', `${A}/identity/link-consent`, { key: linked.key, body: { code }, idempotencyKey: idemKey() });
    expect(consent.status, consent.text).toBe(201);
    const approved = await server.call('POST', `${A}/identity/approve-links`, { key: root.key, body: { consentIds: [consent.body.consent.id] }, idempotencyKey: idemKey() });
    expect(approved.status, approved.text).toBe(200);
    const s = await state(linked.key);
    expect(s.member).toEqual({ status: 'active', role: 'linked_agent', walletAddress: linked.account.address.toLowerCase() });
    expectReason(await prepare(linked.key), 409, 'PARTICIPATION_DISTRIBUTION_RECIPIENT_STALE');
    expectReason(await finalize(linked.key, own.body.intent.id, `0x${'ef'.repeat(32)}`), 409, 'PARTICIPATION_DISTRIBUTION_RECIPIENT_STALE');

    // A day later the root's account is credited for the days not credited before; the linked member's claim is
    // pushed to the root.
    clock.advance(DAY);
    expect(await services().participation.creditNow()).toBeGreaterThan(0);
    const before = await pmOf(root.account.address);
    const pushed = await prepare(linked.key);
    expect(pushed.status, pushed.text).toBe(200);
    expect(pushed.body).toMatchObject({ intent: { status: 'submitted', deliveryMode: 'protocol_push' }, transaction: null });
    const read = await server.call('GET', `${A}/participation-release/distributions/${pushed.body.intent.id}`, { key: linked.key });
    expect(read.body.distribution).toMatchObject({ status: 'submitted', recipientRelation: 'root', transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const paid = await finalize(linked.key, pushed.body.intent.id, read.body.distribution.transactionHash);
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.distribution.status).toBe('paid');
    const credited = await db().selectFrom('participation_credits').select((eb) => eb.fn.sum<string>('amount').as('total')).where('member_key', '=', root.account.address.toLowerCase()).executeTakeFirstOrThrow();
    expect(await pmOf(root.account.address)).toBe(before + BigInt(credited.total));
    // The days credited to the linked wallet's own account were not credited to the root again.
    const days = await db().selectFrom('participation_credits').select(['member_key', 'day']).where('member_key', 'in', [root.account.address.toLowerCase(), linked.account.address.toLowerCase()]).execute();
    expect(new Set(days.map((d) => String(d.day))).size).toBe(days.length);
  });

  it('holds members to the release\'s identity settings: linked under an identity, attested recently enough', async () => {
    // The settings the service reads (config.participation), changed as an operator's restart would change them.
    const settings = server.config.participation;
    const saved = { ...settings };
    try {
      settings.requireIdentity = true;
      const s = await state(member.key);
      expect(s.member.status).toBe('inactive');
      expect(s.deployment.reasonCode).toBe('CURRENT_IDENTITY_MEMBERSHIP_REQUIRED');
      expectReason(await prepare(member.key), 403, 'CURRENT_IDENTITY_MEMBERSHIP_REQUIRED');
      settings.requireIdentity = false;
      settings.attestationMaxAgeMs = 60_000;
      clock.advance(61_000);
      expectReason(await prepare(member.key), 403, 'PARTICIPATION_IDENTITY_ATTESTATION_REQUIRED');
      await services().humans.attest(member.account.address, 'renewed');
      expect((await state(member.key)).member.status).toBe('active');
    } finally {
      Object.assign(settings, saved);
    }
  });

  it('validates its inputs', async () => {
    const bad = await server.call('POST', `${A}/participation-release/claim/prepare`, { key: member.key, body: { ...expected(), extra: 1 }, idempotencyKey: idemKey() });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_PAYLOAD');
    const hash = await server.call('POST', `${A}/participation-release/claim/finalize`, { key: member.key, body: { ...expected(), intentId: 'x', transactionHash: '0x12' } });
    expect(hash.body.code).toBe('INVALID_PAYLOAD');
    expect((await server.call('GET', `${A}/participation-release/distributions/${'x'.repeat(129)}`, { key: member.key })).body.code).toBe('INVALID_ID');
    expect((await server.call('GET', `${A}/participation-release/distributions/pri_unknown`, { key: member.key })).status).toBe(404);
  });
});

