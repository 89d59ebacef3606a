/**
 * A grant is kept first (with the request's Idempotency-Key effect, in one transaction), then paid: one relayer
 * operation per asset, `faucet:<id>:<asset>` (after a reverted or dropped attempt, the next `:again:<k>`), so a retry
 * of the request, or a restart between submit and receipt, finds the same transactions and never pays twice.
 */
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, erc20Abi, type Address, type Hex } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import type { RelayedTx } from '../../chain/relayer.ts';
import { problem } from '../../core/error-codes.ts';
import { isProblemError } from '../../core/errors.ts';
import { FAUCET_WINDOW_MS, type FaucetAsset } from '../../core/faucet.ts';
import { currentAttempt } from '../chain/relay-attempts.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { FaucetDeps, FaucetGrant, FaucetTransfer } from './deps.ts';
import { grantAmounts, type FaucetAmount } from './terms.ts';

const COLUMN: Record<FaucetAsset, 'eth_wei' | 'usdc' | 'pm'> = { ETH: 'eth_wei', USDC: 'usdc', PM: 'pm' };

/** Keeps a grant of today's amounts to `wallet` (lowercase), with the request's effect when it has a key. Returns its id. */
export async function recordGrant(deps: FaucetDeps, who: { wallet: string; agentId: string | null; keyId: string | null }, recordEffect?: EffectRecorder): Promise<string> {
  const id = randomUUID();
  const amounts = Object.fromEntries(grantAmounts(deps).map((a) => [COLUMN[a.asset], a.amount])) as Record<'eth_wei' | 'usdc' | 'pm', bigint>;
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('faucet_grants')
      .values({ id, chain_id: deps.chainId, wallet: who.wallet, agent_id: who.agentId, key_id: who.keyId, ...amounts, created_at: deps.clock.now() })
      .execute();
    await recordEffect?.(trx, id);
  });
  return id;
}

/** Pays a kept grant (sending what a crash left unsent, waiting for what is on its way) and answers it. */
export async function payGrant(deps: FaucetDeps, id: string): Promise<FaucetGrant> {
  const row = await deps.db.selectFrom('faucet_grants').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const wanted = grantAmounts(deps)
    .map((a): FaucetAmount => ({ ...a, amount: BigInt(row[COLUMN[a.asset]]) }))
    .filter((a) => a.amount > 0n);
  // Every transfer is submitted before any is waited for: three transactions in one block or two, not three waits.
  const sent: { amount: FaucetAmount; operationId: string }[] = [];
  for (const amount of wanted) {
    const step = `faucet:${id}:${amount.asset.toLowerCase()}`;
    const { operationId, live } = await currentAttempt(deps.relayer, step);
    if (!live) await relay(deps, step, () => deps.relayer.submit({ operationId, idempotencyKey: operationId, ...transferOf(row.wallet as Address, amount) }));
    sent.push({ amount, operationId });
  }
  const transfers: FaucetTransfer[] = [];
  for (const { amount, operationId } of sent) {
    const tx = await relay(deps, operationId, () => deps.relayer.waitFor(operationId));
    if (tx.state !== 'confirmed' || tx.blockNumber === null) {
      throw problem('SERVICE_UNAVAILABLE', `the faucet's ${amount.asset} transfer ${tx.txHash} ended ${tx.state}; retry with the same Idempotency-Key and it is sent again`, { headers: { 'Retry-After': '1' } });
    }
    transfers.push({ asset: amount.asset, token: amount.token, decimals: amount.decimals, amount: amount.amount, txHash: tx.txHash, blockNumber: tx.blockNumber });
  }
  return {
    id,
    chainId: row.chain_id,
    wallet: row.wallet,
    createdAt: row.created_at,
    nextGrantAt: new Date(row.created_at.getTime() + FAUCET_WINDOW_MS),
    transfers,
  };
}

/** ETH is a plain value transfer; TestUSDC is minted by its owner, the operator; PM comes from the operator's supply. */
function transferOf(wallet: Address, a: FaucetAmount): { to: Address; data: Hex; value?: bigint } {
  if (a.asset === 'ETH') return { to: wallet, data: '0x', value: a.amount };
  const data =
    a.asset === 'USDC'
      ? encodeFunctionData({ abi: loadArtifact('TestUSDC').abi, functionName: 'mint', args: [wallet, a.amount] } as never)
      : encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [wallet, a.amount] });
  return { to: a.token as Address, data: data as Hex };
}

/** A relayer call: an unreachable node is 503 (guard), and so is a relayer that gave up waiting (the grant stays kept). */
async function relay(deps: FaucetDeps, what: string, fn: () => Promise<RelayedTx>): Promise<RelayedTx> {
  try {
    return await deps.guard(fn);
  } catch (err) {
    if (isProblemError(err)) throw err;
    throw problem('SERVICE_UNAVAILABLE', `${what} is on its way but not settled yet (${err instanceof Error ? err.message : String(err)}); retry with the same Idempotency-Key`, { cause: err, headers: { 'Retry-After': '1' } });
  }
}
