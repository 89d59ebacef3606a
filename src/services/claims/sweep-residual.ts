/**
 * POST /sweep/execute and the REST-only batch POST /sweep (docs/money-out.md "Residual sweep"): the collateral a
 * resolved market holds beyond everything still owed (its residual(): unredeemed winning shares, uncollected fees,
 * the unsettled bond and voters' part when the collateral is PM) goes to the creator, sent by the protocol. Read from
 * the chain: swept (this transaction's ResidualSwept), already_swept (an earlier ResidualSwept log on chain), or
 * nothing_to_sweep. One operation per residual amount (`sweep:<chain>:<market>:<amount>`), so a retry sends nothing.
 */
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, parseAbiItem, parseEventLogs, type Address, type Hex } from 'viem';
import { abiWithAllErrors, loadArtifact } from '../../chain/artifacts.ts';
import { problem } from '../../core/error-codes.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { ClaimDeps } from './deps.ts';
import { sendOnce } from './send-once.ts';

export type SweepResult =
  | { completion: 'swept'; marketAddress: string; txHash: string; recipient: string; amountSwept: string; source: 'receipt_event' }
  | { completion: 'already_swept'; marketAddress: string; txHash: string; recipient: string; amountSwept: string; source: 'chain_event' }
  | { completion: 'nothing_to_sweep'; marketAddress: string; txHash: null; recipient: string; amountSwept: '0'; source: 'no_residual' };

const RESIDUAL_SWEPT = parseAbiItem('event ResidualSwept(address indexed creator, uint256 amount)');
const RESOLVED = 4;

export async function sweepMarket(deps: ClaimDeps, ref: { chainId: number; marketAddress: string }, recordEffect?: EffectRecorder): Promise<SweepResult> {
  const market = ref.marketAddress.toLowerCase();
  const row = ref.chainId !== deps.chainId ? undefined : await deps.db.selectFrom('markets').select(['pricing_model', 'cancel_reason', 'created_block', 'creator']).where('chain_id', '=', deps.chainId).where('address', '=', market).executeTakeFirst();
  if (!row || row.cancel_reason !== null || row.pricing_model !== 'automated') throw problem('MARKET_NOT_FOUND', `no automated market ${market} on chain ${ref.chainId} (an order book keeps no collateral on chain)`);
  const abi = abiWithAllErrors('LmsrMarket');
  const read = (functionName: string) => deps.guard(() => deps.client.readContract({ address: market as Address, abi, functionName }));
  const [state, residual] = (await Promise.all([read('state'), read('residual')])) as [number, bigint];
  if (state !== RESOLVED) throw problem('MARKET_NOT_RESOLVED', `market ${market} is not resolved: its residual is known only then`);
  const recipient = row.creator.toLowerCase();
  if (residual === 0n) {
    const logs = await deps.guard(() => deps.client.getLogs({ address: market as Address, event: RESIDUAL_SWEPT, fromBlock: BigInt(row.created_block), toBlock: 'latest' }));
    const last = logs.at(-1);
    if (last) return { completion: 'already_swept', marketAddress: market, txHash: last.transactionHash, recipient, amountSwept: (last.args.amount ?? 0n).toString(), source: 'chain_event' };
    return { completion: 'nothing_to_sweep', marketAddress: market, txHash: null, recipient, amountSwept: '0', source: 'no_residual' };
  }
  const step = `sweep:${deps.chainId}:${market}:${residual}`;
  const id = `${step}:${randomUUID()}`;
  await deps.db.transaction().execute(async (trx) => {
    await trx.insertInto('claim_requests').values({ id, chain_id: deps.chainId, wallet: recipient, plan: JSON.stringify({ wallet: recipient, chainReadAt: deps.clock.now().toISOString(), items: [], sweep: { market, step } }), created_at: deps.clock.now() }).execute();
    await recordEffect?.(trx, id);
  });
  return sendSweep(deps, market, step, recipient);
}

/** A kept sweep (the replay of a keyed one): the same operation, sent if a crash stopped it. */
export async function replaySweep(deps: ClaimDeps, id: string): Promise<SweepResult> {
  const row = await deps.db.selectFrom('claim_requests').select(['plan', 'wallet']).where('id', '=', id).executeTakeFirstOrThrow();
  const { market, step } = (row.plan as unknown as { sweep: { market: string; step: string } }).sweep;
  return sendSweep(deps, market, step, row.wallet);
}

async function sendSweep(deps: ClaimDeps, market: string, step: string, recipient: string): Promise<SweepResult> {
  const abi = loadArtifact('LmsrMarket').abi;
  const { tx, receipt } = await sendOnce(deps, step, market as Address, encodeFunctionData({ abi, functionName: 'sweepResidual' }) as Hex);
  const swept = receipt ? parseEventLogs({ abi, logs: receipt.logs, eventName: 'ResidualSwept' })[0] : undefined;
  if (!swept) throw problem('SERVICE_UNAVAILABLE', `the sweep of ${market} did not settle (transaction ${tx.txHash} ${tx.state}); retry`);
  return { completion: 'swept', marketAddress: market, txHash: tx.txHash, recipient, amountSwept: (swept.args as { amount: bigint }).amount.toString(), source: 'receipt_event' };
}
