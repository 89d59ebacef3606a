// The release reads: the protocol release manifest checked against the chain, the PM token release read from
// the chain, and the renderer catalog. They need a read key with markets:read.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, type Address, type PublicClient } from 'viem';
import { artifactParityHash, loadArtifact, runtimeCodeHashOf, type ContractName } from '../../src/chain/artifacts.ts';
import { RENDERER_KINDS } from '../../src/core/markets/renderers.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';

const V1 = '/api/agent/v1';
const PATHS = ['/discover/release', '/discover/token-release', '/discover/renderers'];
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const index = JSON.parse(readFileSync(new URL('../../artifacts/index.json', import.meta.url), 'utf8')) as { contracts: string[]; compiler: { version: string } };

interface Deployment {
  name: string;
  chainId: number;
  address: Address;
  fromBlock: number;
  deploymentTxHash: string;
  deploymentBlockHash: string;
  runtimeCodeHash: string;
}
interface ReleaseContract {
  name: string;
  contract: ContractName | null;
  address: Address;
  runtimeCodeHash: string;
  artifactRuntimeCodeHash: string | null;
  deployedRuntimeCodeHash: string | null;
  matches: boolean;
}

let server: TestServer;
let key: string;
let client: PublicClient;
let deployments: Deployment[];
beforeAll(async () => {
  server = await startTestServer();
  key = await server.key('read-only');
  client = createPublicClient({ transport: http(server.runtime.rpcUrl) });
  deployments = (await server.call('GET', `${V1}/discover/contracts`, { key })).body.chains[0].deployments;
});
afterAll(async () => {
  await server?.close();
});

describe('release reads', () => {
  it('need a key with markets:read', async () => {
    const noScope = await server.key('read-only', ['portfolio:read']);
    for (const path of PATHS) {
      expect((await server.call('GET', `${V1}${path}`)).status, path).toBe(401);
      const res = await server.call('GET', `${V1}${path}`, { key: noScope });
      expect(res.status, path).toBe(403);
      expect(res.body.code, path).toBe('INSUFFICIENT_SCOPE');
    }
  });

  it('GET /discover/release finds every recorded deployment running its release artifact', async () => {
    const res = await server.call('GET', `${V1}/discover/release`, { key });
    expect(res.status).toBe(200);
    const release = res.body.release;
    expect(release).toMatchObject({
      version: pkg.version,
      chainId: 8453,
      artifactParityHash: artifactParityHash(),
      deployedParityHash: artifactParityHash(),
      parity: true,
      undeployed: [],
    });
    expect(release.compiler.version).toBe(index.compiler.version);
    const contracts = release.contracts as ReleaseContract[];
    expect(contracts.map((c) => [c.name, c.address, c.runtimeCodeHash])).toEqual(deployments.map((d) => [d.name, d.address, d.runtimeCodeHash]));
    expect(contracts.find((c) => c.name === 'TradeRouter.USDC')?.contract).toBe('TradeRouter');
    expect(new Set(contracts.map((c) => c.contract))).toEqual(new Set(index.contracts));
    for (const c of contracts) {
      expect(c.matches, c.name).toBe(true);
      const artifact = loadArtifact(c.contract!);
      expect(c.artifactRuntimeCodeHash, c.name).toBe(artifact.runtimeCodeHash);
      // Independently of the service: the code at the address, immutables masked, is the artifact.
      expect(runtimeCodeHashOf(artifact, (await client.getCode({ address: c.address }))!), c.name).toBe(artifact.runtimeCodeHash);
    }
    // Immutables (the collateral) differ between the routers; masked, they share the artifact's hash.
    const routers = contracts.filter((c) => c.contract === 'TradeRouter');
    expect(routers).toHaveLength(2);
    expect(routers[0]!.runtimeCodeHash).not.toBe(routers[1]!.runtimeCodeHash);
    expect(routers[0]!.deployedRuntimeCodeHash).toBe(routers[1]!.deployedRuntimeCodeHash);
  });

  it('GET /discover/token-release publishes what the PM token says on chain and its deployment record', async () => {
    const res = await server.call('GET', `${V1}/discover/token-release`, { key });
    expect(res.status).toBe(200);
    const record = deployments.find((d) => d.name === 'ParticipationToken')!;
    const { name: _name, ...origin } = record;
    const { name: _d, ...distributor } = server.runtime.deployments.ParticipationDistributor!;
    const read = <F extends 'name' | 'symbol' | 'decimals' | 'totalSupply'>(functionName: F) =>
      client.readContract({ address: record.address, abi: erc20Abi, functionName });
    expect(res.body).toEqual({
      profileId: 'pm-8453',
      stage: 'test',
      deployed: true,
      token: {
        name: await read('name'),
        symbol: 'PM',
        decimals: 18,
        totalSupplyWei: (await read('totalSupply')).toString(),
        logoPath: '/assets/pm.svg',
        disclaimer: expect.any(String),
      },
      origin,
      representations: [],
      distributors: [{ ...distributor, releaseId: server.runtime.services.participation.profile().releaseId, distributorEpoch: 1, tokenAddress: record.address }],
    });
    expect(await read('symbol')).toBe('PM');
    expect(await read('decimals')).toBe(18);
    const pm = (await server.call('GET', `${V1}/discover/collateral`, { key })).body.tokens.find((t: { symbol: string }) => t.symbol === 'PM');
    expect(pm.token.toLowerCase()).toBe(origin.address.toLowerCase());
  });

  it('GET /discover/renderers maps every renderer kind to the discovery read that feeds it', async () => {
    const res = await server.call('GET', `${V1}/discover/renderers`, { key });
    expect(res.status).toBe(200);
    const renderers = res.body.renderers as { id: string; kind: string; appliesTo: { pricingModel: string[] }; dataSource: string; version: number }[];
    expect(new Set(renderers.map((r) => r.kind))).toEqual(new Set(RENDERER_KINDS));
    expect(new Set(renderers.map((r) => r.id)).size).toBe(renderers.length);
    for (const r of renderers) expect(r.dataSource, r.id).toMatch(/^\/discover\/markets\/\{address\}(\/(chart|depth|trades|holders|frames\?kind=(forecast|datapoint|evidence)))?$/);
    // Both pricing models get a depth view: the LMSR buy ladder and the order book.
    const depth = renderers.filter((r) => r.kind === 'depth').flatMap((r) => r.appliesTo.pricingModel);
    expect(depth.sort()).toEqual(['ORDERBOOK', 'automated']);
  });
});

describe('release check against changed code', () => {
  let tampered: TestServer;
  afterAll(async () => {
    await tampered?.close();
  });

  it('reports matches=false and no parity for a deployment whose on-chain code is not its artifact', async () => {
    tampered = await startTestServer();
    const tamperedKey = await tampered.key('read-only');
    const target = tampered.runtime.deployments['LmsrMarketFactory.ternary']!;
    // Another release artifact's code: a hash from the release, at the wrong address.
    await rpc(tampered.runtime.rpcUrl, 'anvil_setCode', [target.address, loadArtifact('OutcomeToken').deployedBytecode]);

    const res = await tampered.call('GET', `${V1}/discover/release`, { key: tamperedKey });
    expect(res.status).toBe(200);
    const contracts = res.body.release.contracts as ReleaseContract[];
    const changed = contracts.find((c) => c.name === 'LmsrMarketFactory.ternary')!;
    expect(changed).toMatchObject({ contract: 'LmsrMarketFactory', matches: false, artifactRuntimeCodeHash: loadArtifact('LmsrMarketFactory').runtimeCodeHash });
    expect(changed.deployedRuntimeCodeHash).not.toBe(changed.artifactRuntimeCodeHash);
    expect(contracts.filter((c) => !c.matches).map((c) => c.name)).toEqual(['LmsrMarketFactory.ternary']);
    // The foreign code hash enters the deployed set, so the parity hashes part.
    expect(res.body.release.deployedParityHash).not.toBe(artifactParityHash());
    expect(res.body.release.parity).toBe(false);
    expect(res.body.release.artifactParityHash).toBe(artifactParityHash());
  });
});
