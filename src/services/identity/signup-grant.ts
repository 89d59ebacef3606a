// The play-money signup grant (LEDGER_SIGNUP_GRANT): credited once per agent, in the transaction that first binds a
// wallet to it, whichever way the wallet arrives (registration, bind-wallet, `svc agents create --wallet`).
import type { Transaction } from 'kysely';
import { CREDIT_REASONS, type Account } from '../../core/ledger/types.ts';
import type { DB } from '../../db/schema.ts';
import type { LedgerService } from '../ledger/ledger.ts';

/** Runs in the transaction that first binds `wallet` to the agent `agentId`. */
export type WalletBoundHook = (trx: Transaction<DB>, agentId: string, wallet: string) => Promise<void>;

/** Credits `amount` (collateral base units, 6 decimals) to the wallet once per agent; 0 grants nothing. */
export function signupGrant(ledger: LedgerService, amount: bigint): WalletBoundHook {
  return async (trx, agentId, wallet) => {
    if (amount === 0n) return;
    const credit = { account: wallet.toLowerCase() as Account, id: 0n, delta: amount, reason: CREDIT_REASONS.SIGNUP_GRANT };
    await ledger.submit([{ type: 'credit', credit }], { source: `signup-grant:${agentId}`, trx });
  };
}
