/**
 * Claims of automated markets' payouts (docs/money-out.md "Claims"): what a wallet is owed, read on chain, and the
 * redemptions the protocol sends for it. This binds the operations of this folder.
 */
import { availableClaims } from './available.ts';
import { collectCreatorFunds, replayCollection } from './collect.ts';
import { payOrderBooks } from './orderbook-payouts.ts';
import { settleSlashedBonds } from './settle-bonds.ts';
import { settleChallengeBonds } from './settle-challenge-bonds.ts';
import { replaySweep, sweepMarket } from './sweep-residual.ts';
import { claimBatch, type ClaimMarketRef } from './batch.ts';
import type { ClaimDeps } from './deps.ts';
import { replayRequest } from './settle.ts';
import { simulateClaims } from './simulate.ts';
import { claimSweep } from './sweep.ts';
import type { Principal } from '../../core/principal.ts';
import { actingWallet } from '../identity/acting-wallet.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';

export type { ClaimDeps } from './deps.ts';
export type { ClaimMarketRef } from './batch.ts';

/** Who claims: the wallet an MCP call proved, or else the key's bound wallet (WALLET_NOT_BOUND). */
export interface Claimant {
  principal: Principal;
  provenWallet: string | null;
}

export interface ClaimService {
  available(who: Claimant, p: { cursor?: string; limit: number }): ReturnType<typeof availableClaims>;
  simulate(who: Claimant, refs: readonly ClaimMarketRef[]): ReturnType<typeof simulateClaims>;
  batch(who: Claimant, refs: readonly ClaimMarketRef[], recordEffect?: EffectRecorder): ReturnType<typeof claimBatch>;
  sweep(who: Claimant, p: { cursor?: string; limit: number; includeIneligible: boolean }, recordEffect?: EffectRecorder): ReturnType<typeof claimSweep>;
  /** A kept claim request (a keyed batch or sweep whose answer was lost): its summary and settlements. */
  replay(id: string): ReturnType<typeof replayRequest>;
  /** The creator's fees and bond of its resolved markets, sent by the protocol to the creator (docs/money-out.md). */
  collect(who: Claimant, p: { chainId?: number; marketAddresses?: readonly string[] }, recordEffect?: EffectRecorder): ReturnType<typeof collectCreatorFunds>;
  replayCollection(id: string): ReturnType<typeof replayCollection>;
  /** A resolved market's residual to its creator. */
  sweepResidual(ref: { chainId: number; marketAddress: string }, recordEffect?: EffectRecorder): ReturnType<typeof sweepMarket>;
  replaySweep(id: string): ReturnType<typeof replaySweep>;
  /** The keeper's pass: challenge bonds paid out, slashed creation bonds settled and their voters paid. */
  settleBonds(): Promise<string[]>;
  /** The keeper's pass: resolved order books paid to their holders as ledger credits. */
  payOrderBooks(): Promise<string[]>;
  projection: ClaimDeps['projection'];
}

export function createClaimService(deps: ClaimDeps): ClaimService {
  const walletOf = (who: Claimant) => actingWallet(deps, who.principal, who.provenWallet, 'payouts belong to a wallet');
  return {
    available: async (who, p) => availableClaims(deps, await walletOf(who), p),
    simulate: async (who, refs) => simulateClaims(deps, await walletOf(who), refs),
    batch: async (who, refs, recordEffect) => claimBatch(deps, await walletOf(who), refs, recordEffect),
    sweep: async (who, p, recordEffect) => claimSweep(deps, await walletOf(who), p, recordEffect),
    replay: (id) => replayRequest(deps, id),
    collect: async (who, p, recordEffect) => collectCreatorFunds(deps, await actingWallet(deps, who.principal, who.provenWallet, 'creator funds belong to a wallet'), p, recordEffect),
    replayCollection: (id) => replayCollection(deps, id),
    sweepResidual: (ref, recordEffect) => sweepMarket(deps, ref, recordEffect),
    replaySweep: (id) => replaySweep(deps, id),
    settleBonds: async () => [...(await settleChallengeBonds(deps)), ...(await settleSlashedBonds(deps))],
    payOrderBooks: () => payOrderBooks(deps),
    projection: deps.projection,
  };
}
