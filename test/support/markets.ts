// Test helpers that act as a market creator or trader would: fund a wallet from the operator, sign and send
// the transactions the API prepares with a real viem wallet, and run the create loop end to end.
import { createWalletClient, http, parseUnits, type Address, type Hex, type PrivateKeyAccount, type TransactionReceipt } from 'viem';
import { chainDefinition } from '../../src/chain/clients.ts';
import { fundFromOperator } from '../../src/chain/dev-funding.ts';
import { approvalCalldata } from '../../src/services/markets/approvals.ts';
import { rpc } from './anvil-rpc.ts';
import { idemKey } from './agents.ts';
import type { CallResult, TestServer } from './harness.ts';

const A = '/api/agent/v1';
let funded = 0;

export function tokens(server: TestServer): { USDC: Address; PM: Address } {
  const c = server.runtime.services.chain.collateral();
  return { USDC: c.find((x) => x.symbol === 'USDC')!.token, PM: c.find((x) => x.symbol === 'PM')!.token };
}

export async function fund(server: TestServer, to: Address, amounts = { usdc: parseUnits('100000', 6), pm: parseUnits('100000', 18) }): Promise<void> {
  await fundFromOperator(server.runtime.relayer, tokens(server), to, amounts, `test-fund:${to}:${++funded}:${Date.now()}`);
}

/** Signs and sends a prepared transaction ({to, data, value}) from the account; waits for the receipt. */
export async function sendTx(server: TestServer, account: PrivateKeyAccount, tx: { to: Address; data: Hex; value?: string | bigint }, opts: { gas?: bigint } = {}): Promise<TransactionReceipt> {
  const chain = chainDefinition(server.config.chain.id, 'test', server.runtime.rpcUrl);
  const wallet = createWalletClient({ chain, account, transport: http(server.runtime.rpcUrl) });
  const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value ?? 0), ...(opts.gas ? { gas: opts.gas } : {}) });
  return server.runtime.services.chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/** Gives a fresh account gas money (anvil_setBalance). */
export async function gas(server: TestServer, to: Address): Promise<void> {
  await rpc(server.runtime.rpcUrl, 'anvil_setBalance', [to, '0x56BC75E2D63100000']); // 100 ETH
}

/** Sends every approval recipe (erc20 or erc1155) the API returned. */
export async function sendApprovals(server: TestServer, account: PrivateKeyAccount, recipes: { kind: 'erc20_approve' | 'erc1155_set_approval_for_all'; token: Address; spender: Address; amount?: string }[]): Promise<void> {
  for (const r of recipes) {
    const receipt = await sendTx(server, account, { to: r.token, data: approvalCalldata(r) });
    if (receipt.status !== 'success') throw new Error(`approval ${r.kind} on ${r.token} reverted`);
  }
}

export const post = (server: TestServer, key: string, path: string, body?: unknown): Promise<CallResult> =>
  server.call('POST', `${A}${path}`, { key, body, idempotencyKey: idemKey('m') });

export function terms(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    question: 'Will the test market resolve to Yes by the end of the year?',
    category: 'TECH',
    outcomes: ['Yes', 'No'],
    collateral: 'USDC',
    closeTime: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    resolutionSource: 'https://example.org/resolution',
    liquidity: parseUnits('1000', 6).toString(),
    creatorFeeBps: 100,
    ...overrides,
  };
}

/** The whole create loop for a funded wallet agent: propose, accept, approvals, send, commit. Returns the commit body. */
export async function createMarket(server: TestServer, key: string, account: PrivateKeyAccount, overrides: Record<string, unknown> = {}) {
  const proposed = await post(server, key, '/negotiate/propose', terms(overrides));
  if (proposed.status !== 201 && proposed.status !== 200) throw new Error(`propose: ${proposed.status} ${proposed.text}`);
  const id = proposed.body.negotiation.id as string;
  const accepted = await post(server, key, `/negotiate/${id}/accept`);
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${accepted.text}`);
  let prepared = await post(server, key, `/negotiate/${id}/prepare-deploy`);
  if (prepared.status !== 200) throw new Error(`prepare-deploy: ${prepared.status} ${prepared.text}`);
  await sendApprovals(server, account, prepared.body.approvalsMissing);
  prepared = await post(server, key, `/negotiate/${id}/prepare-deploy`);
  if (!prepared.body.ready) throw new Error(`not ready: ${prepared.text}`);
  const receipt = await sendTx(server, account, prepared.body.transaction);
  const committed = await post(server, key, `/negotiate/${id}/commit-deploy`, { txHash: receipt.transactionHash });
  if (committed.status !== 200) throw new Error(`commit-deploy: ${committed.status} ${committed.text}`);
  return { negotiationId: id, market: committed.body.market, receipt, prepared: prepared.body };
}
