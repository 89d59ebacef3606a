// The first hour of an agent on the embedded test environment (issue 19): test funds from the faucet over REST and MCP
// (real transfers on anvil, rate-limited per wallet and per key, paid once across a lost answer), GET /time in the
// seconds a wallet proof is signed in, and the ledger proof on the agent surface checked against ledgerRoot() on chain.
// A live environment has no faucet.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { encodePacked, erc20Abi, keccak256, parseEther, parseUnits, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { walletProofText } from '../../src/core/auth-templates.ts';
import { idemKey, keyless, newAccount, newClient, registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { tokens } from '../support/markets.ts';

const A = '/api/agent/v1';
const GRANT = { ETH: parseEther('1'), USDC: parseUnits('10000', 6), PM: parseUnits('10000', 18) };

/** The principal whose stored answer is lost once (a crash between the effect and the stored response). */
let loseAnswerOf: string | null = null;

async function balances(server: TestServer, wallet: Address) {
  const client = server.runtime.services.chain.client;
  const t = tokens(server);
  const erc20 = (address: Address) => client.readContract({ address, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] });
  return { ETH: await client.getBalance({ address: wallet }), USDC: await erc20(t.USDC), PM: await erc20(t.PM) };
}

describe('faucet on the embedded test environment', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', LEDGER_BATCH_MAX_OPS: '10000', LEDGER_BATCH_INTERVAL_MS: '3600000' },
      idempotencyFaults: {
        beforeComplete: (principal) => {
          if (loseAnswerOf !== null && principal.includes(loseAnswerOf)) {
            loseAnswerOf = null;
            throw new Error('simulated crash before the answer was stored');
          }
        },
      },
    });
  });
  afterAll(async () => server?.close());
  let base: string | undefined;
  const mcpUrl = async () => new URL(`${(base ??= await server.runtime.listen())}/mcp`);

  it('publishes what a grant pays and how often (GET /faucet, skill.md)', async () => {
    const res = await server.call('GET', `${A}/faucet`);
    expect(res.status).toBe(200);
    const t = tokens(server);
    expect(res.body).toEqual({
      enabled: true,
      reason: null,
      chainId: server.config.chain.id,
      amounts: [
        { asset: 'ETH', token: null, decimals: 18, amount: GRANT.ETH.toString() },
        { asset: 'USDC', token: t.USDC.toLowerCase(), decimals: 6, amount: GRANT.USDC.toString() },
        { asset: 'PM', token: t.PM.toLowerCase(), decimals: 18, amount: GRANT.PM.toString() },
      ],
      limits: { windowSeconds: 86_400, perWallet: 1, perKey: 1 },
    });
    const md = (await server.call('GET', `${A}/skill.md`)).text;
    expect(md).toContain('## Test funds (faucet)');
    expect(md).toContain('| `POST /api/agent/v1/faucet` | `svc_faucet` | propose |');
    expect(md).toContain('1 ETH, 10000 USDC, 10000 PM');
    expect(md).toContain('`svc faucet <address>`');
    const skill = (await server.call('GET', `${A}/skill.json`)).body;
    expect(skill.testFunds).toMatchObject({ request: { tool: 'svc_faucet', requiredTier: 'propose' }, terms: { tool: 'svc_get_faucet' }, limits: { perWallet: 1, perKey: 1 } });
  });

  it('pays a new bound wallet gas, USDC and PM on chain, then refuses it for the window with 429 and Retry-After', async () => {
    const agent = await registerWallet(server, newAccount(), 'faucet-first-hour');
    const wallet = agent.account.address;
    expect(await balances(server, wallet)).toEqual({ ETH: 0n, USDC: 0n, PM: 0n });

    const key = idemKey('faucet');
    const res = await server.call('POST', `${A}/faucet`, { key: agent.key, body: {}, idempotencyKey: key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ wallet: wallet.toLowerCase(), chainId: server.config.chain.id });
    expect(res.body.transfers.map((x: { asset: string; amount: string }) => [x.asset, x.amount])).toEqual(Object.entries(GRANT).map(([a, v]) => [a, v.toString()]));
    expect(new Date(res.body.nextGrantAt).getTime() - new Date(res.body.grantedAt).getTime()).toBe(86_400_000);
    expect(await balances(server, wallet)).toEqual(GRANT);
    // Each transfer is a confirmed transaction the operator sent.
    for (const x of res.body.transfers as { txHash: Hex; blockNumber: string }[]) {
      const receipt = await server.runtime.services.chain.client.getTransactionReceipt({ hash: x.txHash });
      expect(receipt).toMatchObject({ status: 'success', blockNumber: BigInt(x.blockNumber), from: server.runtime.operator.toLowerCase() });
    }

    // The same key replays the same grant; a new request in the window is refused and pays nothing.
    const replay = await server.call('POST', `${A}/faucet`, { key: agent.key, body: {}, idempotencyKey: key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(res.body);
    const again = await server.call('POST', `${A}/faucet`, { key: agent.key, body: {}, idempotencyKey: idemKey('faucet') });
    expect(again.status).toBe(429);
    expect(again.body).toMatchObject({ code: 'RATE_LIMITED', limit: 'wallet' });
    const retryAfter = Number(again.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await balances(server, wallet)).toEqual(GRANT);
  });

  it('gives one API key one grant a window, even for another wallet', async () => {
    const agent = await registerWallet(server, newAccount(), 'faucet-rebound');
    const first = await server.call('POST', `${A}/faucet`, { key: agent.key, body: {}, idempotencyKey: idemKey('faucet') });
    expect(first.status, first.text).toBe(200);
    // The agent's wallet changes behind the key's back: the wallet is new, the key is not.
    const other = newAccount().address;
    await server.runtime.database.db.updateTable('agents').set({ wallet_address: other.toLowerCase() }).where('id', '=', agent.agentId).execute();
    const second = await server.call('POST', `${A}/faucet`, { key: agent.key, body: {}, idempotencyKey: idemKey('faucet') });
    expect(second.status).toBe(429);
    expect(second.body).toMatchObject({ code: 'RATE_LIMITED', limit: 'key' });
    expect(second.headers['retry-after']).toBeDefined();
    expect(await balances(server, other)).toEqual({ ETH: 0n, USDC: 0n, PM: 0n });
  });

  it('pays once when the answer is lost after the transfers: the retry answers the same transactions', async () => {
    const agent = await registerWallet(server, newAccount(), 'faucet-crash');
    const key = idemKey('faucet-crash');
    loseAnswerOf = agent.keyId;
    const lost = await server.call('POST', `${A}/faucet`, { key: agent.key, body: {}, idempotencyKey: key, unchecked: true });
    expect(loseAnswerOf, 'the fault fired').toBeNull();
    expect(lost.status).toBe(500);
    const retry = await server.call('POST', `${A}/faucet`, { key: agent.key, body: {}, idempotencyKey: key });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await balances(server, agent.account.address)).toEqual(GRANT);
    const grants = await server.runtime.database.db.selectFrom('faucet_grants').selectAll().where('wallet', '=', agent.account.address.toLowerCase()).execute();
    expect(grants.map((g) => g.id)).toEqual([retry.body.grantId]);
    const sent = await server.runtime.database.db.selectFrom('relayer_transactions').select(['operation_id', 'tx_hash', 'state']).where('operation_id', 'like', `faucet:${retry.body.grantId}:%`).orderBy('operation_id').execute();
    expect(sent).toHaveLength(3);
    expect(sent.every((t) => t.state === 'confirmed')).toBe(true);
    expect(sent.map((t) => t.tx_hash).sort()).toEqual(retry.body.transfers.map((x: { txHash: string }) => x.txHash).sort());
  });

  it('refuses a key without an agent and wallet, and a call without an Idempotency-Key', async () => {
    const operatorKey = await server.key('execute');
    const res = await server.call('POST', `${A}/faucet`, { key: operatorKey, body: {}, idempotencyKey: idemKey('faucet') });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    const agent = await registerWallet(server, newAccount(), 'faucet-keyless');
    expect((await server.call('POST', `${A}/faucet`, { key: agent.key, body: {} })).body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    expect((await server.call('POST', `${A}/faucet`, { key: agent.key, body: { wallet: '0x0' }, idempotencyKey: idemKey('faucet') })).body.code).toBe('INVALID_PAYLOAD');
  });

  it('is a tool: svc_faucet pays over MCP and svc_get_faucet needs no key', async () => {
    const agent = await registerWallet(server, newAccount(), 'faucet-mcp');
    const client = new Client({ name: 'faucet-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(await mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${agent.key}` } } }));
    try {
      const terms = (await client.callTool({ name: 'svc_get_faucet', arguments: {} })) as { isError?: boolean; structuredContent?: { enabled: boolean } };
      expect(terms.structuredContent?.enabled).toBe(true);
      const paid = (await client.callTool({ name: 'svc_faucet', arguments: { idempotencyKey: idemKey('faucet-mcp') } })) as { isError?: boolean; structuredContent?: { wallet: string; transfers: unknown[] }; content: { text: string }[] };
      expect(paid.isError, paid.content[0]?.text).toBeFalsy();
      expect(paid.structuredContent).toMatchObject({ wallet: agent.account.address.toLowerCase() });
      expect(paid.structuredContent?.transfers).toHaveLength(3);
      expect(await balances(server, agent.account.address)).toEqual(GRANT);
      const twice = (await client.callTool({ name: 'svc_faucet', arguments: { idempotencyKey: idemKey('faucet-mcp') } })) as { isError?: boolean; content: { text: string }[] };
      expect(twice.isError).toBe(true);
      expect(JSON.parse(twice.content[0]!.text)).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    } finally {
      await client.close();
    }
  });

  it('GET /time gives the Unix seconds a wallet proof is signed in, and a proof signed with them is accepted', async () => {
    const time = await server.call('GET', `${A}/time`);
    expect(time.status).toBe(200);
    expect(time.body.unixSeconds).toBe(Math.floor(time.body.serverTime / 1000));
    const account = newAccount();
    const register = async (timestamp: number) => {
      const { nonce } = (await keyless(server, '/api/auth/nonce')).body;
      const message = walletProofText('agent-register', { agentName: 'time-bot', walletAddress: account.address, nonce, chainId: server.config.chain.id, timestamp });
      const body = { kind: 'wallet', name: 'time-bot', walletAddress: account.address, walletSignature: await account.signMessage({ message }), proofNonce: nonce, signatureTimestamp: timestamp };
      return server.call('POST', `${A}/register`, { body, idempotencyKey: idemKey('time'), headers: newClient() });
    };
    // The milliseconds field is not a proof timestamp: the detail says which field to use.
    const ms = await register(time.body.serverTime);
    expect(ms.status).toBe(401);
    expect(ms.body).toMatchObject({ code: 'WALLET_PROOF_INVALID', reason: 'TIMESTAMP_OUT_OF_WINDOW' });
    expect(ms.body.detail).toContain('unixSeconds');
    const seconds = await register(time.body.unixSeconds);
    expect(seconds.status, seconds.text).toBe(201);
  });

  it('serves the ledger proof on the agent surface (REST and MCP), and it verifies against ledgerRoot() on chain', async () => {
    const agent = await registerWallet(server, newAccount(), 'ledger-proof');
    const account = agent.account.address.toLowerCase() as Address;
    const { ledgerBatcher } = server.runtime.services;
    await ledgerBatcher.flush({ force: true });

    const res = await server.call('GET', `${A}/ledger/proof/${agent.account.address}`);
    expect(res.status, res.text).toBe(200);
    // The same answer as the consumer surface's.
    expect(res.body).toEqual((await server.call('GET', `/api/v1/ledger/proof/${account}`)).body);
    expect(res.body.balances).toEqual([expect.objectContaining({ assetId: '0', balance: server.config.ledger.signupGrant.toString() })]);

    // The recipe of skill.md, with nothing but viem and the chain.
    const onChainRoot = await server.runtime.services.chain.client.readContract({ address: res.body.contract, abi: loadArtifact('LedgerCommitment').abi, functionName: 'ledgerRoot' });
    expect(onChainRoot).toBe(res.body.root);
    for (const b of res.body.balances as { assetId: string; balance: string; leaf: Hex; proof: Hex[] }[]) {
      const leaf = keccak256(keccak256(encodePacked(['address', 'uint256', 'int256'], [account, BigInt(b.assetId), BigInt(b.balance)])));
      expect(leaf).toBe(b.leaf);
      const folded = b.proof.reduce((node, sibling) => keccak256(BigInt(node) < BigInt(sibling) ? `${node}${sibling.slice(2)}` as Hex : `${sibling}${node.slice(2)}` as Hex), leaf);
      expect(folded).toBe(onChainRoot);
    }

    const md = (await server.call('GET', `${A}/skill.md`)).text;
    expect(md).toContain('## Verify your ledger balance');
    expect(md).toContain('`svc_get_ledger_proof_by_account`');
    expect(md).toContain('ledgerRoot()');

    const client = new Client({ name: 'proof-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(await mcpUrl()));
    try {
      const tool = (await client.callTool({ name: 'svc_get_ledger_proof_by_account', arguments: { account } })) as { isError?: boolean; structuredContent?: unknown };
      expect(tool.isError).toBeFalsy();
      expect(tool.structuredContent).toEqual(res.body);
    } finally {
      await client.close();
    }
  });
});

describe('faucet on a live environment', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_ENVIRONMENT: 'live' } });
  });
  afterAll(async () => server?.close());

  it('is absent: GET /faucet says so, POST /faucet is 403 FEATURE_DISABLED, skill.md has no test-funds section', async () => {
    const terms = await server.call('GET', `${A}/faucet`);
    expect(terms.body).toMatchObject({ enabled: false, reason: 'FAUCET_LIVE_ENVIRONMENT', amounts: [] });
    const key = await server.key('execute');
    const res = await server.call('POST', `${A}/faucet`, { key, body: {}, idempotencyKey: idemKey('faucet-live') });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'FEATURE_DISABLED', reason: 'FAUCET_LIVE_ENVIRONMENT' });
    expect((await server.call('GET', `${A}/skill.json`)).body.testFunds).toBeNull();
    expect((await server.call('GET', `${A}/skill.md`)).text).not.toContain('## Test funds');
  });
});
