/**
 * An agent's first hour on svc, end to end, learning everything it needs from the service's own documents:
 *
 *   1. register with a wallet proof (the template from GET /auth-discovery, the time from GET /time)
 *   2. get test funds from the faucet (gas, test USDC, PM)
 *   3. create an automated market (negotiate → prepare-deploy → approvals → sign → commit-deploy)
 *   4. quote over MCP (the official SDK), then trade over REST: prepare → approve if asked → sign → confirmed
 *   5. on an order-book market: place an order, cancel it, confirm the cancel, list it
 *   6. verify its play-money ledger balance against ledgerRoot() on chain, without trusting svc
 *
 * Run it against a service started with wallet registration open:
 *
 *   REGISTRATION_PATHS=wallet npm start          # one terminal
 *   npx tsx examples/first-hour.ts               # another (SVC_URL defaults to http://127.0.0.1:8080)
 *
 * A new wallet is generated each run (AGENT_PRIVATE_KEY to bring your own). test/examples/first-hour.test.ts runs
 * this file against the embedded service, so it stays true.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { concat, createPublicClient, createWalletClient, defineChain, encodePacked, http, keccak256, parseAbi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const BASE = (process.env.SVC_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const AGENT = `${BASE}/api/agent/v1`;
const account = privateKeyToAccount((process.env.AGENT_PRIVATE_KEY as Hex | undefined) ?? generatePrivateKey());
let apiKey = '';
let step = 0;

const say = (text: string) => console.log(`${++step}. ${text}`);

/** One call of the agent API; a problem+json answer throws with its code unless `allow` names its status. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the example reads JSON documents as they come
async function call(method: string, url: string, body?: unknown, o: { allow?: number[]; keyless?: boolean } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (apiKey && !o.keyless) headers.authorization = `Bearer ${apiKey}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  // Every write carries a fresh Idempotency-Key: a retry with the same key could never act twice.
  if (method !== 'GET') headers['idempotency-key'] = `first-hour-${crypto.randomUUID()}`;
  const res = await fetch(url.startsWith('http') ? url : `${AGENT}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!res.ok && !(o.allow ?? []).includes(res.status)) throw new Error(`${method} ${url}: ${res.status} ${parsed?.code ?? ''} ${parsed?.detail ?? text}`);
  return { status: res.status, body: parsed };
}

/** The same path on this service: documents name the public base URL, which may be another host than SVC_URL. */
const local = (url: string) => `${BASE}${new URL(url, BASE).pathname}`;

async function main() {
  // ── 1. register ──────────────────────────────────────────────────────────────────────────────────────────────
  const auth = (await call('GET', '/auth-discovery')).body;
  const template: string = auth.walletProof.templates.find((t: { kind: string }) => t.kind === 'agent-register').template;
  const time = (await call('GET', '/time')).body;
  const { nonce } = (await call('POST', `${BASE}${auth.walletProof.nonceEndpoint}`, {})).body;
  const skill = (await call('GET', '/skill.json')).body;
  const chainId: number = skill.chainId;
  const name = `first-hour-${account.address.slice(2, 8).toLowerCase()}`;
  // Addresses in the templates are lowercase (GET /auth-discovery notes).
  const fields: Record<string, string | number> = { walletAddress: account.address.toLowerCase(), nonce, chainId, timestamp: time.unixSeconds, agentName: name };
  const message = template.replace(/\{(\w+)\}/g, (_, k: string) => String(fields[k]));
  const registered = (await call('POST', '/register', { kind: 'wallet', name, walletAddress: account.address, walletSignature: await account.signMessage({ message }), signatureTimestamp: time.unixSeconds, proofNonce: nonce })).body;
  apiKey = registered.apiKey.key;
  const me = (await call('GET', '/me')).body;
  say(`registered agent ${me.id} (${me.tier}) with wallet ${me.walletAddress}`);

  // ── 2. test funds ────────────────────────────────────────────────────────────────────────────────────────────
  const grant = (await call('POST', '/faucet', {})).body;
  say(`faucet paid ${grant.transfers.map((t: { asset: string; amount: string }) => `${t.amount} ${t.asset}`).join(', ')} (base units)`);

  const chains = (await call('GET', '/discover/chains')).body.chains;
  const rpcUrl: string = chains.find((c: { chainId: number }) => c.chainId === chainId).rpc.publicUrl;
  const chain = defineChain({ id: chainId, name: 'svc', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
  const reader = createPublicClient({ chain, transport: http(rpcUrl) });
  const wallet = createWalletClient({ chain, account, transport: http(rpcUrl) });
  /** Signs and sends a prepared transaction, then follows it to CONFIRMED through the service's status read. */
  const send = async (tx: { to: Address; data: Hex }) => {
    const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data, value: 0n });
    await reader.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    const status = (await call('GET', `/transactions/status?hash=${hash}`)).body;
    if (status.state !== 'CONFIRMED') throw new Error(`${hash} is ${status.state}`);
    return hash;
  };

  // ── 3. create a market ───────────────────────────────────────────────────────────────────────────────────────
  const create = async (terms: Record<string, unknown>) => {
    const id = (await call('POST', '/negotiate/propose', terms)).body.negotiation.id;
    await call('POST', `/negotiate/${id}/accept`);
    let prepared = (await call('POST', `/negotiate/${id}/prepare-deploy`)).body;
    for (const approval of prepared.approvalsMissing) await send(approval.transaction);
    if (prepared.approvalsMissing.length > 0) prepared = (await call('POST', `/negotiate/${id}/prepare-deploy`)).body;
    if (!prepared.ready) throw new Error(`not ready to deploy: ${JSON.stringify(prepared.balancesShort)}`);
    const txHash = await send(prepared.transaction);
    return (await call('POST', `/negotiate/${id}/commit-deploy`, { txHash })).body.market;
  };
  const closeTime = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const market = await create({
    question: `Will the first-hour agent ${name} finish its tour?`,
    category: 'TECH',
    outcomes: ['Yes', 'No'],
    collateral: 'USDC',
    closeTime,
    resolutionSource: 'https://example.org/first-hour',
    liquidity: '100000000',
  });
  say(`created market ${market.address}`);

  // ── 4. quote over MCP, trade over REST ───────────────────────────────────────────────────────────────────────
  const mcpDiscovery = (await call('GET', '/mcp-discovery')).body;
  const mcp = new Client({ name: 'first-hour', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(local(mcpDiscovery.endpoints.remote.url)), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  const order = { market: market.address, outcome: 0, side: 'buy', shares: '10000000' }; // 10 YES shares of a USDC market
  const quoted = await mcp.callTool({ name: 'svc_trade_quote', arguments: order });
  const quote = JSON.parse((quoted.content as { text: string }[])[0]!.text);
  await mcp.close();
  say(`quoted over MCP: 10 YES shares cost ${quote.amount} USDC base units (price after ${quote.pricesAfter[0]})`);
  let prepared = await call('POST', '/trade/prepare', order, { allow: [409] });
  if (prepared.status === 409 && prepared.body.code === 'APPROVAL_REQUIRED') {
    for (const approval of prepared.body.approvals) await send(approval.transaction);
    prepared = await call('POST', '/trade/prepare', order);
  }
  say(`bought: transaction ${await send(prepared.body.transaction)} confirmed`);

  // ── 5. an order-book order: place, cancel, confirm, list ─────────────────────────────────────────────────────
  const book = await create({ question: `Will ${name}'s order rest on the book?`, category: 'TECH', pricingModel: 'ORDERBOOK', closeTime, resolutionSource: 'https://example.org/first-hour' });
  const placed = (await call('POST', '/orderbook/place-order', { market: book.address, outcome: 0, action: 'buy', price: '0.40', shares: '5000000' })).body;
  await call('POST', '/orderbook/cancel-order', { orderId: placed.id });
  await call('POST', '/orderbook/confirm-cancel', { orderId: placed.id });
  const mine = (await call('GET', `/orderbook/orders?market=${book.address}`)).body.orders.find((o: { id: string }) => o.id === placed.id);
  say(`order ${placed.id} placed, cancelled: status ${mine.status}, remaining ${mine.remaining}`);

  // ── 6. verify the ledger balance against the chain ───────────────────────────────────────────────────────────
  const deadline = Date.now() + 60_000;
  let proof = (await call('GET', `/ledger/proof/${account.address}`)).body;
  while (proof.balances.length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500)); // the signup grant is in the next committed batch
    proof = (await call('GET', `/ledger/proof/${account.address}`)).body;
  }
  if (proof.balances.length === 0) throw new Error('no committed ledger balance within a minute');
  for (const b of proof.balances) {
    const leaf = keccak256(keccak256(encodePacked(['address', 'uint256', 'int256'], [account.address, BigInt(b.assetId), BigInt(b.balance)])));
    if (leaf !== b.leaf) throw new Error(`leaf of asset ${b.assetId} does not match`);
    const root = (b.proof as Hex[]).reduce<Hex>((node, sibling) => keccak256(BigInt(node) < BigInt(sibling) ? concat([node, sibling]) : concat([sibling, node])), leaf);
    if (root !== proof.root) throw new Error(`proof of asset ${b.assetId} folds to ${root}, not the root`);
  }
  const onChain = await reader.readContract({ address: proof.contract, abi: parseAbi(['function ledgerRoot() view returns (bytes32)']), functionName: 'ledgerRoot' });
  if (onChain !== proof.root) throw new Error(`ledgerRoot() is ${onChain}: a newer batch was committed, fetch the proof again`);
  const collateral = proof.balances.find((b: { asset: { kind: string } }) => b.asset.kind === 'collateral');
  say(`ledger balance ${collateral?.balance ?? 0} verified against ledgerRoot() ${proof.root.slice(0, 10)}… of batch ${proof.batchNonce}`);
  console.log('first hour: done');
}

main().catch((err: unknown) => {
  console.error(`first hour failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
