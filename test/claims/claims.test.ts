// Claims end to end on a real chain and database: two traders, markets resolved through the resolution path (an
// outcome, and void), /claims/available listing what the chain says each wallet is owed, a dry run, a batch the
// protocol sends (the wallet's balance moves by exactly the listed amount; a second claim is SKIPPED), a sweep, the
// spec's skip reasons, and a keyed retry answered from the same transaction.
import { erc20Abi, parseUnits, type Address } from 'viem';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walletProofMessage } from '../../src/core/wallet-proof.ts';
import { keyless } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { buyShares, funded as fundedAgent, resolveUndisputed, type Agent } from '../support/claims.ts';
import { createMarket, post } from '../support/markets.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000' } });
});
afterAll(async () => server?.close());

const A = '/api/agent/v1';
let idem = 0;
const sync = () => server.runtime.services.indexer.syncNow();
const funded = (name: string) => fundedAgent(server, name);
const buy = (agent: Agent, market: string, outcome: number, shares: bigint) => buyShares(server, agent, market, outcome, shares);
const resolve = (creator: Agent, market: string, outcome: number) => resolveUndisputed(server, creator, market, outcome);

const usdcOf = (who: string, token: string) => server.runtime.services.chain.client.readContract({ address: token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [who as Address] });

describe('claims', () => {
  it('lists what the chain owes, claims it once at the protocol’s gas, and skips with the spec’s reasons', async () => {
    const creator = await funded('claims-creator');
    const [winner, loser] = [await funded('claims-winner'), await funded('claims-loser')];
    const { market } = await createMarket(server, creator.key, creator.account);
    const address = (market.address as string).toLowerCase();
    const token = market.collateral.token as string;
    await sync();
    const shares = parseUnits('40', 6);
    await buy(winner, address, 0, shares);
    await buy(loser, address, 1, parseUnits('25', 6));
    await sync();

    // Before resolution: nothing is owed yet.
    expect((await server.call('GET', `${A}/claims/available`, { key: winner.key })).body).toMatchObject({ payouts: [], totalClaimable: '0', count: 0 });
    await resolve(creator, address, 1);

    const available = await server.call('GET', `${A}/claims/available`, { key: winner.key });
    expect(available.status, available.text).toBe(200);
    expect(available.body).toMatchObject({
      wallet: winner.account.address.toLowerCase(),
      totalClaimable: shares.toString(),
      totalEligibleNow: shares.toString(),
      count: 1,
      unattributedPayoutCount: 0,
      valueAttributionComplete: true,
      hasMore: false,
      nextCursor: null,
      valueTotals: [{ chainId: 8453, collateralToken: token.toLowerCase(), symbol: 'USDC', decimals: 6, totalWei: shares.toString(), totalFormatted: '40' }],
      projection: { source: 'indexer' },
    });
    expect(available.body.payouts[0]).toMatchObject({ marketAddress: address, amount: shares.toString(), status: 'claimable', eligibleNow: true, amountSource: 'chain', winningShares: shares.toString(), isResolved: true, claimed: false });
    expect((await server.call('GET', `${A}/claims/available`, { key: loser.key })).body.payouts).toEqual([]); // a losing outcome pays nothing

    const refs = { markets: [{ chainId: 8453, marketAddress: address }] };
    const dry = await post(server, winner.key, '/claims/simulate', refs);
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toMatchObject({ requested: 1, claimable: 1, totalEligibleAmountWei: shares.toString(), items: [{ marketAddress: address, wouldSettle: true, amount: shares.toString() }] });

    const before = await usdcOf(winner.account.address, token);
    const key = `claims-${++idem}`;
    const claimed = await server.call('POST', `${A}/claims/batch`, { key: winner.key, body: refs, idempotencyKey: key });
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body).toMatchObject({ requested: 1, claimable: 1, claims: [{ state: 'SETTLED', marketAddress: address, amount: shares.toString(), claimed: true, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) }] });
    expect((await usdcOf(winner.account.address, token)) - before).toBe(shares); // exactly the listed amount
    // The same key answers the same transaction; a new claim finds nothing left.
    const replay = await server.call('POST', `${A}/claims/batch`, { key: winner.key, body: refs, idempotencyKey: key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.claims[0].txHash).toBe(claimed.body.claims[0].txHash);
    const again = await server.call('POST', `${A}/claims/batch`, { key: winner.key, body: refs, idempotencyKey: `claims-${++idem}` });
    expect(again.body.claims).toEqual([expect.objectContaining({ state: 'SKIPPED', skippedReason: 'NOT_CLAIMABLE_YET', amount: '0' })]);
    await sync();
    expect((await server.call('GET', `${A}/claims/available`, { key: winner.key })).body.payouts).toEqual([
      expect.objectContaining({ marketAddress: address, status: 'claimed', claimed: true, amount: shares.toString() }),
    ]);

    // Unknown, another chain, an order book: skipped with the spec's reasons, never an error.
    const odd = await server.call('POST', `${A}/claims/batch`, {
      key: winner.key,
      idempotencyKey: `claims-${++idem}`,
      body: { markets: [{ chainId: 8453, marketAddress: `0x${'1'.repeat(40)}` }, { chainId: 1, marketAddress: address }] },
    });
    expect(odd.body.claims.map((c: { skippedReason: string }) => c.skippedReason)).toEqual(['MARKET_NOT_FOUND', 'MARKET_NOT_FOUND']);
    for (const body of [{ markets: [] }, { markets: Array.from({ length: 101 }, () => refs.markets[0]) }, { ...refs, wallet: 'x' }]) {
      expect((await server.call('POST', `${A}/claims/batch`, { key: winner.key, body, idempotencyKey: `claims-${++idem}` })).body.code).toBe('INVALID_PAYLOAD');
    }
    expect((await server.call('GET', `${A}/claims/available?limit=201`, { key: winner.key })).body.code).toBe('INVALID_QUERY');
  });

  it('void pays every share its equal split; a sweep claims a page of payouts in one transaction', async () => {
    const creator = await funded('sweep-creator');
    const holder = await funded('sweep-holder');
    const voided = (await createMarket(server, creator.key, creator.account, { question: 'Will this market be voided?' })).market;
    const won = (await createMarket(server, creator.key, creator.account, { question: 'Will this market pay outcome one?' })).market;
    await sync();
    await buy(holder, voided.address, 0, parseUnits('30', 6));
    await buy(holder, voided.address, 1, parseUnits('10', 6));
    await buy(holder, won.address, 0, parseUnits('7', 6));
    await sync();
    await resolve(creator, voided.address, 0);
    await resolve(creator, won.address, 1);

    const available = (await server.call('GET', `${A}/claims/available`, { key: holder.key })).body;
    const amounts = Object.fromEntries(available.payouts.map((p: { marketAddress: string; amount: string }) => [p.marketAddress, p.amount]));
    expect(amounts).toEqual({ [voided.address.toLowerCase()]: parseUnits('20', 6).toString(), [won.address.toLowerCase()]: parseUnits('7', 6).toString() });

    const token = voided.collateral.token as string;
    const before = await usdcOf(holder.account.address, token);
    const swept = await server.call('POST', `${A}/claims/sweep?limit=50`, { key: holder.key, body: {}, idempotencyKey: `claims-${++idem}` });
    expect(swept.status, swept.text).toBe(200);
    expect(swept.body).toMatchObject({ totalClaimable: 2, totalAmount: parseUnits('27', 6).toString(), totalEligibleAmount: parseUnits('27', 6).toString(), excludedIneligibleCount: 0, hasMore: false });
    expect(swept.body.claims.map((c: { state: string }) => c.state)).toEqual(['SETTLED', 'SETTLED']);
    expect(new Set(swept.body.claims.map((c: { txHash: string }) => c.txHash)).size).toBe(1); // one transaction
    expect((await usdcOf(holder.account.address, token)) - before).toBe(parseUnits('27', 6));
  });

  it('a market whose creation a reorg took away is MARKET_NOT_FOUND', async () => {
    const creator = await funded('reorg-claims-creator');
    const { market } = await createMarket(server, creator.key, creator.account, { question: 'Will this creation survive?' });
    await sync();
    await rpc(server.runtime.rpcUrl, 'anvil_reorg', [1, []]);
    await sync();
    const res = await server.call('POST', `${A}/claims/batch`, { key: creator.key, idempotencyKey: `claims-${++idem}`, body: { markets: [{ chainId: 8453, marketAddress: market.address }] } });
    expect(res.body.claims).toEqual([expect.objectContaining({ state: 'SKIPPED', skippedReason: 'MARKET_NOT_FOUND' })]);
  });

  it('over MCP, a claim takes a wallet proof of the claiming wallet and its idempotencyKey', async () => {
    const creator = await funded('mcp-claims-creator');
    const holder = await funded('mcp-claims-holder');
    const { market } = await createMarket(server, creator.key, creator.account, { question: 'Will the MCP claim pay?' });
    const address = (market.address as string).toLowerCase();
    await sync();
    await buy(holder, address, 0, parseUnits('3', 6));
    await resolve(creator, address, 1);
    const base = await server.runtime.listen();
    const client = new Client({ name: 'svc-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${holder.key}` } } }));
    const tool = 'svc_claims_batch';
    const payload = { markets: [{ chainId: 8453, marketAddress: address }] };
    const { nonce } = (await keyless(server, '/api/auth/nonce')).body as { nonce: string };
    const timestamp = Math.floor(Date.now() / 1000);
    const message = walletProofMessage({ agentId: holder.agentId, apiKeyId: holder.keyId, tool, scope: 'fees:claim', chainId: 8453, walletAddress: holder.account.address, resourceId: null, payload, nonce, timestamp });
    const proof = { walletSignature: await holder.account.signMessage({ message }), signatureTimestamp: timestamp, proofNonce: nonce };
    type ToolResult = { isError?: boolean; structuredContent?: { claims: { state: string; amount: string }[] }; content: { text: string }[] };
    // Refused proofs, missing or not verifying, are not the key's answer: the retry with a good proof under the same key runs.
    const idempotencyKey = `mcp-${++idem}`;
    const noProof = (await client.callTool({ name: tool, arguments: { ...payload, idempotencyKey } })) as ToolResult;
    expect(JSON.parse(noProof.content[0]!.text)).toMatchObject({ code: 'WALLET_AUTH_REQUIRED', status: 401, reason: 'PROOF_MISSING' });
    const forged = { ...proof, walletSignature: await holder.account.signMessage({ message: `${message}:forged` }) };
    const badProof = (await client.callTool({ name: tool, arguments: { ...payload, ...forged, idempotencyKey } })) as ToolResult;
    expect(JSON.parse(badProof.content[0]!.text)).toMatchObject({ code: 'WALLET_PROOF_INVALID', reason: 'SIGNATURE_MISMATCH' });
    const ok = (await client.callTool({ name: tool, arguments: { ...payload, ...proof, idempotencyKey } })) as ToolResult;
    expect(ok.isError, ok.content[0]?.text).toBeFalsy();
    expect(ok.structuredContent!.claims).toEqual([expect.objectContaining({ state: 'SETTLED', amount: parseUnits('3', 6).toString() })]);
    await client.close();
  });

  it('two claims of the same payout at once: one is paid, the other finds nothing left', async () => {
    const creator = await funded('race-creator');
    const holder = await funded('race-holder');
    const { market } = await createMarket(server, creator.key, creator.account, { question: 'Will two claims race?' });
    const address = (market.address as string).toLowerCase();
    await sync();
    await buy(holder, address, 0, parseUnits('4', 6));
    await resolve(creator, address, 1);
    const body = { markets: [{ chainId: 8453, marketAddress: address }] };
    const [a, b] = await Promise.all([1, 2].map(() => server.call('POST', `${A}/claims/batch`, { key: holder.key, body, idempotencyKey: `claims-${++idem}` })));
    const claims = [a!.body.claims[0], b!.body.claims[0]].sort((x: { state: string }, y: { state: string }) => (x.state < y.state ? -1 : 1));
    expect(claims).toEqual([
      expect.objectContaining({ state: 'SETTLED', amount: parseUnits('4', 6).toString() }),
      expect.objectContaining({ state: 'SKIPPED', skippedReason: 'NOT_CLAIMABLE_YET', amount: '0', claimed: true }),
    ]);
  });
});
