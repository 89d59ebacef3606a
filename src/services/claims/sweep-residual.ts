/**
 * POST /sweep/execute and the REST-only batch POST /sweep (docs/money-out.md "Residual sweep"): the collateral a
 * resolved market holds beyond everything still owed (its residual(): unredeemed winning shares, uncollected fees,
 * the unsettled bond and voters' part when the collateral is PM) goes to the creator, sent by the protocol. Read from
 * the chain: swept (this transaction's ResidualSwept), already_swept (an earlier ResidualSwept log on chain), or
 * nothing_to_sweep. One operation per sweep (`sweep:<chain>:<market>:<sweeps before>:<amount>`), so a retry sends
 * nothing; "already swept" is the indexer's projection of the chain's ResidualSwept log (no unbounded log scan).
 */
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, parseEventLogs, type Address, type Hex } from 'viem';
import { abiWithAllErrors, loadArtifact } from '../../chain/artifacts.ts';
import { problem } from '../../core/error-codes.ts';
import { isProblemError } from '../../core/errors.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { ClaimDeps } from './deps.ts';
import { sendOnce } from './send-once.ts';

export type SweepResult =
  | { completion: 'swept'; marketAddress: string; txHash: string; recipient: string; amountSwept: string; source: 'receipt_event' }
  | { completion: 'already_swept'; marketAddress: string; txHash: string; recipient: string; amountSwept: string; source: 'chain_event' }
  | { completion: 'nothing_to_sweep'; marketAddress: string; txHash: null; recipient: string; amountSwept: '0'; source: 'no_residual' };

const RESOLVED = 4;

export async function sweepMarket(deps: ClaimDeps, ref: { chainId: number; marketAddress: string }, recordEffect?: EffectRecorder): Promise<SweepResult> {
  const market = ref.marketAddress.toLowerCase();
  const row = ref.chainId !== deps.chainId ? undefined : await deps.db.selectFrom('markets').select(['pricing_model', 'cancel_reason', 'creator']).where('chain_id', '=', deps.chainId).where('address', '=', market).executeTakeFirst();
  if (!row || row.cancel_reason !== null || row.pricing_model !== 'automated') throw problem('MARKET_NOT_FOUND', `no automated market ${market} on chain ${ref.chainId} (an order book keeps no collateral on chain)`);
  const recipient = row.creator.toLowerCase();
  const { state, residual } = await readResidual(deps, market);
  if (state !== RESOLVED) throw problem('MARKET_NOT_RESOLVED', `market ${market} is not resolved: its residual is known only then`);
  if (residual === 0n) return sweptBefore(deps, market, recipient);
  // One step per sweep of the market: the sweeps before it (projected) and the amount name it.
  const sweeps = await deps.db.selectFrom('market_payouts').select('tx_hash').where('chain_id', '=', deps.chainId).where('market', '=', market).where('kind', '=', 'residual_swept').execute();
  const step = `sweep:${deps.chainId}:${market}:${sweeps.length}:${residual}`;
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

async function readResidual(deps: ClaimDeps, market: string): Promise<{ state: number; residual: bigint }> {
  const abi = abiWithAllErrors('LmsrMarket');
  const read = (functionName: string) => deps.guard(() => deps.client.readContract({ address: market as Address, abi, functionName }));
  try {
    const [state, residual] = (await Promise.all([read('state'), read('residual')])) as [number, bigint];
    return { state, residual };
  } catch (err) {
    if (isProblemError(err)) throw err;
    // No code there (a creation the indexer has not seen reorged away yet), or an implementation without a residual.
    throw problem('MARKET_NOT_FOUND', `market ${market} has no sweepable residual on chain (${err instanceof Error ? err.message.split('\n')[0] : 'unreadable'})`);
  }
}

/** residual() is 0: swept before (its ResidualSwept, as the indexer projected it), or there was never anything to sweep. */
async function sweptBefore(deps: ClaimDeps, market: string, recipient: string): Promise<SweepResult> {
  const last = await deps.db.selectFrom('market_payouts').select(['tx_hash', 'amount']).where('chain_id', '=', deps.chainId).where('market', '=', market).where('kind', '=', 'residual_swept').orderBy('block_number', 'desc').executeTakeFirst();
  if (last && BigInt(last.amount) > 0n) return { completion: 'already_swept', marketAddress: market, txHash: last.tx_hash, recipient, amountSwept: last.amount, source: 'chain_event' };
  return { completion: 'nothing_to_sweep', marketAddress: market, txHash: null, recipient, amountSwept: '0', source: 'no_residual' };
}

async function sendSweep(deps: ClaimDeps, market: string, step: string, recipient: string): Promise<SweepResult> {
  const abi = loadArtifact('LmsrMarket').abi;
  const sent = await sendOnce(deps, step, market as Address, encodeFunctionData({ abi, functionName: 'sweepResidual' }) as Hex);
  const swept = sent.receipt ? parseEventLogs({ abi, logs: sent.receipt.logs, eventName: 'ResidualSwept' })[0] : undefined;
  if (sent.tx && swept) return { completion: 'swept', marketAddress: market, txHash: sent.tx.txHash, recipient, amountSwept: (swept.args as { amount: bigint }).amount.toString(), source: 'receipt_event' };
  // Someone swept first (refused, or our transaction found nothing left): what the chain says now.
  const { residual } = await readResidual(deps, market);
  if (residual === 0n) {
    const before = await sweptBefore(deps, market, recipient);
    // Swept by another transaction the indexer has not projected yet: nothing is left, and nothing was lost.
    return before;
  }
  throw problem('SERVICE_UNAVAILABLE', `the sweep of ${market} did not settle (${sent.tx ? `transaction ${sent.tx.txHash} ${sent.tx.state}` : `refused: ${sent.refused}`}); retry`);
}
