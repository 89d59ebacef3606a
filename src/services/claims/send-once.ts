// A payout step the protocol sends once under a fixed operation id per step (a market's fee collection, its bond, its
// residual): a live attempt is waited for, never sent twice; one that reverted or was dropped gives way to the next
// attempt (src/services/resolution/relay-step.ts currentAttempt). A step the chain would refuse now (someone else
// settled it, the market is not resolved) is simulated first and answered as `refused` with the contract's error
// name: nothing is sent and nothing fails. An unreachable node is 503 (guard); a relayer that gave up waiting is 503.
import { toFunctionSelector, type Address, type Hex, type TransactionReceipt } from 'viem';
import type { RelayedTx } from '../../chain/relayer.ts';
import { problem } from '../../core/error-codes.ts';
import { isProblemError } from '../../core/errors.ts';
import { currentAttempt, revertName } from '../chain/relay-attempts.ts';
import type { ClaimDeps } from './deps.ts';

export type SentStep = { tx: RelayedTx; receipt: TransactionReceipt | null; refused: null } | { tx: null; receipt: null; refused: string };

export async function sendOnce(deps: ClaimDeps, step: string, to: Address, data: Hex): Promise<SentStep> {
  const { operationId, live } = await currentAttempt(deps.relayer, step);
  if (!live) {
    try {
      await deps.guard(() => deps.client.call({ account: deps.relayer.address, to, data }));
    } catch (err) {
      if (isProblemError(err)) throw err;
      const name = revertName(err) ?? revertNameOfCall(err);
      if (name) return { tx: null, receipt: null, refused: name };
      throw err;
    }
  }
  let tx: RelayedTx;
  try {
    tx = await deps.guard(() => (live ? deps.relayer.waitFor(operationId) : deps.relayer.send({ operationId, idempotencyKey: operationId, to, data })));
  } catch (err) {
    if (isProblemError(err)) throw err;
    throw problem('SERVICE_UNAVAILABLE', `${step} is on its way but not settled yet (${err instanceof Error ? err.message : String(err)}); retry`, { cause: err });
  }
  const receipt = tx.state === 'confirmed' ? await deps.guard(() => deps.client.getTransactionReceipt({ hash: tx.txHash as Hex })) : null;
  return { tx, receipt, refused: null };
}

/** eth_call reverts carry raw data, not a decoded error: the selector of the market's and resolver's known errors. */
function revertNameOfCall(err: unknown): string | null {
  const data = findRevertData(err);
  if (!data) return null;
  return KNOWN_ERRORS[data.slice(0, 10)] ?? 'Reverted';
}

function findRevertData(err: unknown): string | null {
  let e = err as { data?: unknown; cause?: unknown } | undefined;
  for (let i = 0; e && i < 8; i++) {
    if (typeof e.data === 'string' && e.data.startsWith('0x')) return e.data;
    if (e.data && typeof (e.data as { data?: unknown }).data === 'string') return (e.data as { data: string }).data;
    e = e.cause as typeof e;
  }
  return null;
}

const KNOWN_ERRORS: Record<string, string> = Object.fromEntries(
  ['NotResolved()', 'BondAlreadySettled()', 'NoVoterPool()', 'BallotsMismatch()', 'CreatorFeesLocked(uint8)', 'NoChallengeBond()', 'WrongPhase(uint8)'].map((sig) => [toFunctionSelector(sig), sig.slice(0, sig.indexOf('('))]),
);
