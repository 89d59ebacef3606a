// Resolution as the indexer projects it from the resolver's logs (issue 16, on-chain half): a proposal, the finalize
// after the 2-hour window, a dispute through a vote without quorum to the council, and a reorg that drops a proposal.
// Each log moves the market's state once and appends its events once, in the batch transaction; real anvil, time by
// evm_increaseTime.
import { encodeFunctionData, erc20Abi, maxUint256, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas, sendTx, tokens } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000' } });
});
afterAll(async () => server?.close());

const abi = loadArtifact('MarketResolver').abi;
const resolver = () => server.runtime.services.chain.lane().resolver;
const db = () => server.runtime.database.db;
const sync = () => server.runtime.services.indexer.syncNow();
const state = async (market: string) => (await db().selectFrom('markets').select('state').where('address', '=', market.toLowerCase()).executeTakeFirstOrThrow()).state;
const events = async (market: string) =>
  (await db().selectFrom('events').select(['type', 'payload']).where('market_address', '=', market.toLowerCase()).where('type', 'not in', ['market.created', 'market.live']).orderBy('seq').execute()).map((e) => ({ type: e.type, payload: e.payload as Record<string, unknown> }));
const call = (functionName: string, args: readonly unknown[]) => encodeFunctionData({ abi, functionName, args } as never) as Hex;
const later = async (seconds: number) => {
  await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [seconds]);
  await rpc(server.runtime.rpcUrl, 'evm_mine');
};
let ops = 0;
const asOperator = (functionName: string, args: readonly unknown[]) =>
  server.runtime.relayer.send({ operationId: `test:resolver:${++ops}:${functionName}`, idempotencyKey: `test:resolver:${ops}`, to: resolver(), data: call(functionName, args) });

async function market() {
  const creator = await registerWallet(server);
  await gas(server, creator.account.address);
  await fund(server, creator.account.address);
  const { market } = await createMarket(server, creator.key, creator.account);
  await sync();
  return { creator, address: market.address as Address };
}

describe('resolution through the indexer', () => {
  it('a proposal opens the challenge window; finalize after it resolves the market; each event once', async () => {
    const { creator, address } = await market();
    const proposed = await sendTx(server, creator.account, { to: resolver(), data: call('propose', [address, 1]) });
    expect(proposed.status).toBe('success');
    await sync();
    await sync(); // a second pass applies nothing twice
    expect(await state(address)).toBe('creator_proposal');
    const placed = await server.call('GET', `/api/agent/v1/discover/market-states?marketAddress=${address}`, { key: creator.key });
    expect(placed.body.market).toMatchObject({ state: 'creator_proposal', resolution: { phase: 'proposed', proposedOutcome: 1, voteRound: 0, finalOutcome: null } });
    const [opened, ...none] = await events(address);
    expect(none).toEqual([]);
    expect(opened).toMatchObject({ type: 'market.challengeWindowOpened', payload: { outcome: 1, isVoid: false } });
    expect(Date.parse(opened!.payload.challengeDeadline as string) - Date.parse((await db().selectFrom('market_resolutions').selectAll().where('market', '=', address.toLowerCase()).executeTakeFirstOrThrow()).record.proposedAt as string)).toBe(7_200_000);

    // Too early: the resolver refuses; after the window anyone finalizes.
    await expect(asOperator('finalize', [address])).rejects.toThrow();
    await later(7_201);
    expect((await asOperator('finalize', [address])).state).toBe('confirmed');
    await sync();
    expect(await state(address)).toBe('resolved');
    expect((await server.call('GET', `/api/agent/v1/discover/market-states?marketAddress=${address}`, { key: creator.key })).body.market).toMatchObject({ state: 'resolved', resolution: { phase: 'resolved', finalOutcome: 1 } });
    expect((await events(address)).map((e) => e.type)).toEqual(['market.challengeWindowOpened', 'market.resolved']);
    expect((await events(address))[1]!.payload).toEqual({ outcome: 1, isVoid: false });
    const row = await db().selectFrom('market_resolutions').selectAll().where('market', '=', address.toLowerCase()).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ phase: 'resolved', final_outcome: 1 });
    expect(row.record).toMatchObject({ route: 'undisputed', creatorSlashed: false, proposer: creator.account.address.toLowerCase() });
  });

  it('disputed, no quorum, the council decides: every state and event of the path', async () => {
    const { creator, address } = await market();
    const challenger = privateKeyToAccount(generatePrivateKey());
    await gas(server, challenger.address);
    await fund(server, challenger.address, { usdc: 0n, pm: parseUnits('100000', 18) });
    await sendTx(server, challenger, { to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [resolver(), maxUint256] }) });
    await sendTx(server, creator.account, { to: resolver(), data: call('propose', [address, 1]) });
    expect((await sendTx(server, challenger, { to: resolver(), data: call('challenge', [address, 2]) })).status).toBe('success');
    await sync();
    expect(await state(address)).toBe('challenge');
    // The keeper opens the vote round of a disputed market, once.
    expect(await server.runtime.services.resolutionKeeper.runOnce()).toEqual([`openVote ${address.toLowerCase()}`]);
    await sync();
    expect(await state(address)).toBe('human_voting');
    expect(await server.runtime.services.resolutionKeeper.runOnce()).toEqual([]);
    await later(86_401);
    await asOperator('recordVerdict', [address, 1, 1, 0, `0x${'00'.repeat(32)}`, 0]); // NoQuorum
    await sync();
    expect(await state(address)).toBe('council_review');
    // The council: one member of our own, threshold 1, signing the EIP-712 decision.
    const member = privateKeyToAccount(generatePrivateKey());
    await asOperator('setCouncil', [[member.address], 1n]);
    const domain = { name: 'MarketResolver', version: '1', chainId: server.config.chain.id, verifyingContract: resolver() };
    const signature = await member.signTypedData({ domain, types: { CouncilDecision: [{ name: 'market', type: 'address' }, { name: 'outcome', type: 'uint8' }, { name: 'round', type: 'uint8' }] }, primaryType: 'CouncilDecision', message: { market: address, outcome: 2, round: 1 } });
    await asOperator('councilDecide', [address, 2, [{ signer: member.address, signature }]]);
    await sync();
    expect(await state(address)).toBe('resolved');
    const sessionId = `${server.config.chain.id}:${address.toLowerCase()}:1`;
    expect(await events(address)).toEqual([
      { type: 'market.challengeWindowOpened', payload: expect.objectContaining({ outcome: 1 }) },
      { type: 'market.disputed', payload: { challenger: challenger.address.toLowerCase(), counterOutcome: 2 } },
      { type: 'market.voteOpened', payload: expect.objectContaining({ sessionId, round: 1 }) },
      { type: 'market.voteClosed', payload: { sessionId, verdictKind: 'no_quorum', outcome: null } },
      { type: 'market.councilReview', payload: { phase: 'opened' } },
      { type: 'market.councilReview', payload: { phase: 'decided' } }, // members sent councilDecide themselves: announced with its log
      { type: 'market.councilReview', payload: { phase: 'executed' } },
      { type: 'market.disputeFinalized', payload: { finalOutcome: 2, creatorSlashed: true } },
      { type: 'market.resolved', payload: { outcome: 2, isVoid: false } },
    ]);
  });

  it('the keeper finalizes an unchallenged proposal once its window has passed on chain, and only then', async () => {
    const { creator, address } = await market();
    const keeper = server.runtime.services.resolutionKeeper;
    await sendTx(server, creator.account, { to: resolver(), data: call('propose', [address, 2]) });
    await sync();
    expect(await keeper.runOnce()).toEqual([]); // the window is open
    await later(7_201);
    expect(await keeper.runOnce()).toEqual([`finalize ${address.toLowerCase()}`]);
    await sync();
    expect(await state(address)).toBe('resolved');
    expect(await keeper.runOnce()).toEqual([]);
    expect((await events(address)).map((e) => e.type)).toEqual(['market.challengeWindowOpened', 'market.resolved']);
  });

  it('an order book proposed on before its close time stops trading (its resting orders cancelled with the batch) and resolves like any market', async () => {
    const creator = await registerWallet(server);
    await gas(server, creator.account.address);
    const book = await createOrderBookMarket(server, creator, 'Will an early proposal end the resting orders?', new Date(Date.now() + 7 * 86_400_000));
    const placed = await server.call('POST', '/api/agent/v1/orderbook/place-order', { key: creator.key, idempotencyKey: 'rest-before-proposal', body: { market: book.address, outcome: 0, action: 'buy', price: '0.4', shares: '10000000' } });
    expect(placed.body.status).toBe('resting');
    await sendTx(server, creator.account, { to: resolver(), data: call('propose', [book.address, 2]) });
    await sync();
    expect(await state(book.address)).toBe('creator_proposal');
    const order = await db().selectFrom('orders').select(['status']).where('id', '=', placed.body.id).executeTakeFirstOrThrow();
    expect(order.status).toBe('cancelled');
    const again = await server.call('POST', '/api/agent/v1/orderbook/place-order', { key: creator.key, idempotencyKey: 'after-proposal', body: { market: book.address, outcome: 0, action: 'buy', price: '0.4', shares: '10000000' } });
    expect(again.body.code).toBe('MARKET_NOT_TRADEABLE');

    // Resolved by the same machine; the outcome sits next to the ledger's id of the book, where the payout reads it.
    await later(7_201);
    expect(await server.runtime.services.resolutionKeeper.runOnce()).toEqual([`finalize ${book.address.toLowerCase()}`]);
    await sync();
    const resolved = await db()
      .selectFrom('markets as m')
      .innerJoin('market_resolutions as r', (j) => j.onRef('r.chain_id', '=', 'm.chain_id').onRef('r.market', '=', 'm.address'))
      .select(['m.state', 'm.ledger_market_id', 'r.final_outcome'])
      .where('m.address', '=', book.address.toLowerCase())
      .executeTakeFirstOrThrow();
    expect(resolved).toMatchObject({ state: 'resolved', final_outcome: 2, ledger_market_id: expect.stringMatching(/^[0-9]+$/) });
  });

  it('a reorg that drops a proposal puts the market back, and the proposal mined again is announced again, once', async () => {
    const { creator, address } = await market();
    await sendTx(server, creator.account, { to: resolver(), data: call('propose', [address, 0]) });
    await sync();
    expect(await state(address)).toBe('creator_proposal');
    await rpc(server.runtime.rpcUrl, 'anvil_reorg', [1, []]); // the proposal's block is replaced by an empty one
    await sync();
    expect(await state(address)).toBe('open');
    expect(await db().selectFrom('market_resolutions').select('phase').where('market', '=', address.toLowerCase()).execute()).toEqual([]);
    await sendTx(server, creator.account, { to: resolver(), data: call('propose', [address, 0]) });
    await sync();
    expect(await state(address)).toBe('creator_proposal');
    expect((await events(address)).map((e) => [e.type, e.payload.isVoid])).toEqual([
      ['market.challengeWindowOpened', true],
      ['market.challengeWindowOpened', true],
    ]);
  });
});
