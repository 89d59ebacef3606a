// A step the protocol sends under an operation id (resolution steps, payouts): which attempt it goes out under, and
// the name of the custom error a simulation reverted with. Shared by src/services/resolution and src/services/claims.
import { BaseError, ContractFunctionRevertedError } from 'viem';
import type { Relayer, RelayedTx } from '../../chain/relayer.ts';
import { problem } from '../../core/error-codes.ts';

/** Attempts at one step before it is left to the operator (each a transaction that reverted or was dropped). */
const MAX_ATTEMPTS = 10;

/**
 * The operation a step goes out under: the live attempt (prepared, submitted or confirmed) if there is one, else a
 * fresh id after those that reverted or were dropped — `<step>`, then `<step>:again:1`, `:again:2`… A reverted
 * attempt (sent on a time the next block did not have yet, or beaten by another sender) never blocks the step for
 * good, and a live one is never sent twice.
 */
export async function currentAttempt(relayer: Pick<Relayer, 'get'>, step: string): Promise<{ operationId: string; live: RelayedTx | null }> {
  for (let k = 0; k < MAX_ATTEMPTS; k++) {
    const operationId = k === 0 ? step : `${step}:again:${k}`;
    const tx = await relayer.get(operationId);
    if (!tx) return { operationId, live: null };
    if (tx.state !== 'reverted' && tx.state !== 'dropped') return { operationId, live: tx };
  }
  throw problem('SERVICE_UNAVAILABLE', `${step} reverted or was dropped ${MAX_ATTEMPTS} times on chain; the operator must look at relayer_transactions`);
}

/** The name of the custom error a simulated resolver call reverted with, or null for any other failure. */
export function revertName(err: unknown): string | null {
  const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
  return reverted instanceof ContractFunctionRevertedError ? (reverted.data?.errorName ?? null) : null;
}
