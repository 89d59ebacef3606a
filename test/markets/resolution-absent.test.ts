// An absent creator: the market closes at close time (the service clock), resolveBy passes on chain with no proposal,
// and the keeper opens the vote (reason absent_creator, bond at risk); a round with no ballots is no quorum, which
// hands the market to the council. Service time by the injected clock, chain time by evm_increaseTime.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas } from '../support/markets.ts';

const clock = new ManualClock(new Date());
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000' } });
});
afterAll(async () => server?.close());

it('resolveBy passes without a proposal: the keeper opens the vote, and a round without ballots goes to the council', async () => {
  const { indexer, lifecycle, resolutionKeeper } = server.runtime.services;
  const creator = await registerWallet(server);
  await gas(server, creator.account.address);
  await fund(server, creator.account.address);
  const closeTime = new Date(clock.now().getTime() + 2 * 3_600_000);
  const { market } = await createMarket(server, creator.key, creator.account, { closeTime: closeTime.toISOString() });
  const address = market.address.toLowerCase();
  await indexer.syncNow();
  const row = () => server.runtime.database.db.selectFrom('markets').select(['state', 'resolve_by']).where('address', '=', address).executeTakeFirstOrThrow();
  const resolveBy = (await row()).resolve_by;

  // Past resolveBy on both clocks: the service closes the market, the chain lets the vote open.
  const ahead = Math.ceil((resolveBy.getTime() - clock.now().getTime()) / 1000) + 60;
  clock.advance(ahead * 1000);
  await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [ahead]);
  await rpc(server.runtime.rpcUrl, 'evm_mine');
  await lifecycle.tick();
  expect((await row()).state).toBe('closed');
  expect(await resolutionKeeper.runOnce()).toEqual([`openVote ${address}`]);
  await indexer.syncNow();
  expect((await row()).state).toBe('human_voting');
  const record = await server.runtime.database.db.selectFrom('market_resolutions').select('record').where('market', '=', address).executeTakeFirstOrThrow();
  expect(record.record).toMatchObject({ phase: 'voting', voteReason: 'absent_creator', voteRound: 1, proposedAt: null });

  // Nobody votes: at the deadline the keeper records no quorum, and the council takes it.
  await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [86_401]);
  await rpc(server.runtime.rpcUrl, 'evm_mine');
  expect(await resolutionKeeper.runOnce()).toEqual([`recordVerdict ${address}`]);
  await indexer.syncNow();
  expect((await row()).state).toBe('council_review');
  const events = await server.runtime.database.db.selectFrom('events').select(['type', 'payload']).where('market_address', '=', address).where('type', 'like', 'market.%').where('type', 'not in', ['market.created', 'market.live', 'market.resolution_due']).orderBy('seq').execute();
  const sessionId = `${server.config.chain.id}:${address}:1`;
  expect(events).toEqual([
    { type: 'market.voteOpened', payload: expect.objectContaining({ sessionId, round: 1 }) },
    { type: 'market.voteClosed', payload: { sessionId, verdictKind: 'no_quorum', outcome: null } },
    { type: 'market.councilReview', payload: { phase: 'opened' } },
  ]);
});
