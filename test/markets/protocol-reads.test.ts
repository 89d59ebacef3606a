// The protocol documents agents read before creating or trading: the market-state graph, the
// two-lane fee schedule and the rules. They need a read key with markets:read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATION_BOND_PM, LMSR_FEES, MIN_LIQUIDITY } from '../../src/core/markets/fees.ts';
import { MARKET_STATES } from '../../src/core/markets/states.ts';
import { PricingModel } from '../../src/wire/markets.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas } from '../support/markets.ts';

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
  key = await server.key('read-only');
});
afterAll(async () => {
  await server?.close();
});

const V1 = '/api/agent/v1';

describe('protocol reads', () => {
  it('need a key with markets:read', async () => {
    for (const path of [`/discover/market-states?marketAddress=0x${'a'.repeat(40)}`, '/discover/fees', '/discover/rules']) {
      expect((await server.call('GET', `${V1}${path}`)).status, path).toBe(401);
      const noScope = await server.key('read-only', ['portfolio:read']);
      expect((await server.call('GET', `${V1}${path}`, { key: noScope })).body.code, path).toBe('INSUFFICIENT_SCOPE');
    }
  });

  it('GET /discover/market-states lists the eight canonical states and their transitions, and places the named market in them', async () => {
    expect((await server.call('GET', `${V1}/discover/market-states`, { key })).body.code).toBe('INVALID_QUERY'); // marketAddress is required
    expect((await server.call('GET', `${V1}/discover/market-states?marketAddress=0x${'a'.repeat(40)}`, { key })).body.code).toBe('MARKET_NOT_FOUND');
    expect((await server.call('GET', `${V1}/discover/market-states?marketAddress=0x${'a'.repeat(40)}&chainId=1`, { key })).body.code).toBe('UNSUPPORTED_CHAIN');
    const creator = await registerWallet(server);
    await gas(server, creator.account.address);
    await fund(server, creator.account.address);
    const { market } = await createMarket(server, creator.key, creator.account);
    const res = await server.call('GET', `${V1}/discover/market-states?marketAddress=${market.address}&chainId=8453`, { key });
    expect(res.status).toBe(200);
    // Its place in the graph (the resolution phases are tested where markets resolve: test/markets/resolution-indexer.test.ts).
    expect(res.body.market).toEqual({ address: market.address.toLowerCase(), chainId: 8453, state: 'open', resolution: null });
    expect(res.body.states.map((s: { state: string }) => s.state)).toEqual([...MARKET_STATES]);
    expect(res.body.transitions).toContainEqual(expect.objectContaining({ from: 'open', to: 'closed' }));
    expect(res.body.transitions).toContainEqual(expect.objectContaining({ from: 'creator_proposal', to: 'challenge', event: 'market.disputed' }));
    expect(res.body.controls.axes).toEqual(['policy', 'discovery', 'mutation', 'interaction']);
  });

  it('GET /discover/fees publishes the values the factories enforce, one lane per pricingModel', async () => {
    const res = await server.call('GET', `${V1}/discover/fees`, { key });
    expect(res.status).toBe(200);
    // Keyed by the pricingModel market records carry, so lanes[market.pricingModel] always answers; the LMSR lane is automated.
    expect(Object.keys(res.body.lanes).sort()).toEqual([...PricingModel.options].sort());
    expect(res.body.lanes.automated.lane).toBe('LMSR');
    expect(res.body.lanes.automated).toMatchObject({
      protocolFeeBps: LMSR_FEES.protocolFeeBps,
      creatorFeeBps: { default: LMSR_FEES.creatorFeeBpsDefault, min: LMSR_FEES.creatorFeeBpsMin, max: LMSR_FEES.creatorFeeBpsMax },
      creation: { bond: { symbol: 'PM', amountWei: CREATION_BOND_PM.toString() } },
    });
    expect(res.body.lanes.automated.creation.minLiquidity).toEqual([
      { symbol: 'USDC', amountWei: MIN_LIQUIDITY.USDC.toString() },
      { symbol: 'PM', amountWei: MIN_LIQUIDITY.PM.toString() },
    ]);
    expect(res.body.lanes.ORDERBOOK.takerFeeBps).toBeGreaterThanOrEqual(res.body.lanes.ORDERBOOK.makerFeeBps);
    // Prices and shares in the units of every other surface (docs/units.md).
    expect(res.body.lanes.ORDERBOOK).toMatchObject({ lane: 'ORDERBOOK', tick: '0.01', minShares: '1000000' });
  });

  it('GET /discover/rules states the windows, the bond split and the actors', async () => {
    const res = await server.call('GET', `${V1}/discover/rules`, { key });
    expect(res.status).toBe(200);
    expect(res.body.resolution.challengeWindowSeconds).toBe(7200);
    // What the resolver enforces and the vote uses (docs/resolution.md): read back from the deployed resolver.
    const resolver = server.runtime.services.chain.lane().resolver;
    const abi = loadArtifact('MarketResolver').abi;
    const onChain = async (functionName: string) => server.runtime.services.chain.client.readContract({ address: resolver, abi, functionName } as never);
    expect(res.body.resolution).toMatchObject({
      challengeWindowSeconds: Number(await onChain('challengeWindow')),
      voteWindowSeconds: Number(await onChain('voteWindow')),
      challengeBond: { symbol: 'PM', amountWei: String(await onChain('challengeBond')) },
      voteQuorum: 3,
      maxVoteRounds: Number(await onChain('MAX_VOTE_ROUNDS')),
    });
    expect(res.body.bonds.slashSplitPercent).toEqual({ keeper: 5, voters: 20, treasury: 75 });
    expect(res.body.markets.outcomeCounts).toEqual([2, 3]);
    expect(res.body.actors.map((a: { actor: string }) => a.actor)).toEqual(['creator', 'trader', 'challenger', 'voter', 'council']);
  });
});
