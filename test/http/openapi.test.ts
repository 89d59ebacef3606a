// The generated OpenAPI documents are valid OpenAPI 3.1, describe every capability of the
// catalog, and the capability list follows the spec's AgentCapability shape.
import { loadArtifact, runtimeCodeHashOf } from '../../src/chain/artifacts.ts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createPublicClient, encodeFunctionData, erc20Abi, http, keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/api/catalog/index.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('OpenAPI documents', () => {
  it.each([['/api/agent/v1/openapi.json'], ['/api/v1/openapi.json']])('%s is valid OpenAPI 3.1', async (path) => {
    const res = await server.call('GET', path);
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every capability of its surface, and nothing else', async () => {
    for (const [surface, path] of [
      ['agent', '/api/agent/v1/openapi.json'],
      ['consumer', '/api/v1/openapi.json'],
    ] as const) {
      const doc = (await server.call('GET', path)).body;
      const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
        .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
        .sort();
      const expected = CATALOG.filter((c) => c.surface === surface)
        .map((c) => `${c.method} ${c.fullPath.replace(/:(\w+)/g, '{$1}')}`)
        .sort();
      expect(documented).toEqual(expected);
    }
  });

  it('declares security, Idempotency-Key and the problem codes from the catalog', async () => {
    const doc = (await server.call('GET', '/api/agent/v1/openapi.json')).body;
    const chains = doc.paths['/api/agent/v1/discover/chains'].get;
    expect(chains.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(chains.responses['401']).toBeDefined();
    expect(doc.paths['/api/agent/v1/time'].get.security).toEqual([]);
    const consumer = (await server.call('GET', '/api/v1/openapi.json')).body;
    const tx = consumer.paths['/api/v1/transactions/{hash}'].get;
    // Its own codes (400, 404, 500, 503) plus the pipeline's: a key sent anyway (401/403), rate limit (429).
    expect(Object.keys(tx.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '500', '503', 'default']);
    expect(tx.responses['400'].description).toContain('INVALID_CHAIN');
    expect(tx.responses['429'].description).toBe('RATE_LIMITED');
    expect(tx.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TransactionStatusResponse' });
  });
});

describe('GET /discover/capabilities', () => {
  it('lists every agent capability as an AgentCapability, public and uncharged', async () => {
    const res = await server.call('GET', '/api/agent/v1/discover/capabilities');
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBeUndefined();
    const agentCaps = CATALOG.filter((c) => c.surface === 'agent');
    expect(res.body.capabilities).toHaveLength(agentCaps.length);
    for (const cap of res.body.capabilities) {
      expect(Object.keys(cap).sort()).toEqual(['category', 'description', 'idempotent', 'method', 'name', 'path', 'requiredTier', 'surface']);
      expect(cap.name).toBe(`${cap.method} ${cap.path}`);
      expect(cap.surface).toBe('agent');
    }
    expect(res.body.capabilities.find((c: { name: string }) => c.name === 'GET /discover/chains')).toMatchObject({
      requiredTier: 'read-only',
      category: 'discovery',
      idempotent: true,
    });
  });
});

describe('discovery reads with real chain data', () => {
  it('GET /discover/chains reads the priority fee from the node', async () => {
    const key = await server.key('read-only');
    const res = await server.call('GET', '/api/agent/v1/discover/chains', { key });
    expect(res.status).toBe(200);
    const [chain] = res.body.chains;
    expect(chain).toMatchObject({ chainId: 8453, type: 'evm', enabled: true });
    expect(chain.rpc.recommendedReadStrategy).toBe('pin-to-receipt-block');
    expect(chain.rpc.publicUrl).toBe(server.runtime.rpcUrl);
    const fee = await server.runtime.services.chain.recommendedPriorityFeeWei();
    expect(chain.rpc.recommendedPriorityFeeWei).toBe(fee.toString());
  });

  it('GET /discover/collateral returns USDC (6 decimals) and PM (18) at their deployed addresses', async () => {
    const key = await server.key('read-only');
    const res = await server.call('GET', '/api/agent/v1/discover/collateral', { key });
    const d = server.runtime.deployments;
    expect(res.body.tokens).toEqual([
      { token: d.TestUSDC!.address, symbol: 'USDC', decimals: 6, chainId: 8453, enabled: true },
      { token: d.ParticipationToken!.address, symbol: 'PM', decimals: 18, chainId: 8453, enabled: true },
    ]);
    expect((await server.call('GET', '/api/agent/v1/discover/collateral?chainId=8453', { key })).status).toBe(200);
    expect((await server.call('GET', '/api/agent/v1/discover/collateral?chainId=1', { key })).body.code).toBe('UNSUPPORTED_CHAIN');
    expect((await server.call('GET', '/api/agent/v1/discover/collateral?chainId=-4', { key })).body.code).toBe('INVALID_QUERY');
  });

  it('GET /discover/contracts lists the deployment records and narrows by collateral', async () => {
    const key = await server.key('read-only');
    const res = await server.call('GET', '/api/agent/v1/discover/contracts', { key });
    const [chain] = res.body.chains;
    expect(chain.stable).toBe(true);
    expect(chain.deployments.map((d: { name: string }) => d.name).sort()).toEqual([
      'LedgerCommitment',
      'LmsrMarket',
      'LmsrMarketFactory.binary',
      'LmsrMarketFactory.ternary',
      'MarketResolver',
      'OrderBookMarket',
      'OrderBookMarketFactory',
      'OutcomeToken',
      'ParticipationDistributor',
      'ParticipationToken',
      'PayoutRouter',
      'PmSale',
      'TestUSDC',
      'TradeRouter.PM',
      'TradeRouter.USDC',
    ]);
    const at = (name: string) => chain.deployments.find((d: { name: string }) => d.name === name).address;
    expect(chain.outcomeToken).toBe(at('OutcomeToken'));
    expect(chain.factories).toEqual({ binary: at('LmsrMarketFactory.binary'), ternary: at('LmsrMarketFactory.ternary'), orderbook: at('OrderBookMarketFactory') });
    expect(chain.routerInterface.functions).toEqual({
      executeTradeIntent: { signature: 'executeTradeIntent((address,uint8,bool,uint256,uint256,uint256,address))', selector: '0x68ac5e6d' },
      executeBasketIntent: { signature: 'executeBasketIntent((address,uint8,bool,uint256,uint256,uint256,address)[])', selector: '0x4e2d18ea' },
    });
    const max = (2n ** 256n - 1n).toString();
    for (const c of chain.collaterals) {
      expect(c.router).toBe(at(`TradeRouter.${c.symbol}`));
      expect(c.capabilities).toEqual({ trading: true, creation: true });
      // Each recipe carries its ready transaction: the approve / setApprovalForAll call to the token.
      const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [c.router, BigInt(max)] });
      const setAll = encodeFunctionData({ abi: loadArtifact('OutcomeToken').abi, functionName: 'setApprovalForAll', args: [c.router, true] });
      expect(chain.approvals).toContainEqual({ kind: 'erc20_approve', reason: 'buy_collateral', chainId: 8453, token: c.token, spender: c.router, amount: max, transaction: { chainId: 8453, to: c.token, data: approve, value: '0' } });
      expect(chain.approvals).toContainEqual({ kind: 'erc1155_set_approval_for_all', reason: 'sell_outcome_token', chainId: 8453, token: chain.outcomeToken, spender: c.router, transaction: { chainId: 8453, to: chain.outcomeToken, data: setAll, value: '0' } });
    }
    expect(chain.approvals).toHaveLength(4);
    const routerCode = await createPublicClient({ transport: http(server.runtime.rpcUrl) }).getCode({ address: at('TradeRouter.USDC') });
    expect(runtimeCodeHashOf(loadArtifact('TradeRouter'), routerCode!)).toBe(chain.routerInterface.runtimeCodeHash);
    const pm = chain.deployments.find((d: { name: string }) => d.name === 'ParticipationToken');
    const code = await createPublicClient({ transport: http(server.runtime.rpcUrl) }).getCode({ address: pm.address });
    expect(pm.runtimeCodeHash).toBe(keccak256(code!));
    const narrowed = await server.call('GET', '/api/agent/v1/discover/contracts?collateral=pm', { key });
    expect(narrowed.body.chains[0].collaterals.map((c: { symbol: string }) => c.symbol)).toEqual(['PM']);
    expect(narrowed.body.chains[0].approvals.map((a: { spender: string }) => a.spender)).toEqual([at('TradeRouter.PM'), at('TradeRouter.PM')]);
    const byAddress = await server.call('GET', `/api/agent/v1/discover/contracts?collateral=${server.runtime.deployments.TestUSDC!.address}`, { key });
    expect(byAddress.body.chains[0].collaterals.map((c: { symbol: string }) => c.symbol)).toEqual(['USDC']);
    expect((await server.call('GET', '/api/agent/v1/discover/contracts?collateral=DOGE', { key })).body.code).toBe('INVALID_QUERY');
  });

  it('GET /health reports database and chain head', async () => {
    const res = await server.call('GET', '/api/agent/v1/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.chain.headBlock).toMatch(/^[0-9]+$/);
    expect(res.body.database.ok).toBe(true);
  });
});
