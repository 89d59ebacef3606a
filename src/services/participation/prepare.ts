/**
 * POST /participation-release/claim/prepare (docs/participation.md "Claim"): every gate in order, then an intent with
 * a voucher the operator key signs for the member's account: cumulative = everything credited to it, paying the
 * difference to what the distributor paid it. The root wallet claims itself (self_claim: the answer carries the
 * transaction to sign); a linked member's claim is pushed by the relayer to the root (protocol_push: transaction
 * null, the intent submitted). The intent and the request's Idempotency-Key record commit in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { DISTRIBUTION_TYPES, distributorDomain, intentKey } from '../../core/participation/voucher.ts';
import { loadArtifact } from '../../chain/artifacts.ts';
import { problem } from '../../core/error-codes.ts';
import { claimVerdict, type ReasonCode } from '../../core/participation/gates.ts';
import type { Principal } from '../../core/principal.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { ParticipationDeps } from './deps.ts';
import { memberOf } from './member.ts';
import { readRelease, type Profile } from './release.ts';
import { creditedTo, paidOnChain } from './state.ts';
import { distributionView, statusAt, type DistributionView, type IntentRow } from './views.ts';

export interface PrepareResponse {
  profileId: string;
  releaseId: string | null;
  intent: { id: string; status: DistributionView['status']; expiresAt: string | null; deliveryMode: 'self_claim' | 'protocol_push' };
  transaction: { chainId: number; to: string; data: string; value: '0' } | null;
}

export function refuse(code: ReasonCode, detail: string, extensions: Record<string, unknown> = {}): never {
  throw problem(code, detail, { extensions: { reasonCode: code, ...extensions }, ...(code === 'PARTICIPATION_ROUTE_DEGRADED' || code === 'PARTICIPATION_DISTRIBUTION_FINALITY_PENDING' ? { headers: { 'Retry-After': '5' } } : {}) });
}

/** The expected ids the caller names must be the release's, else it is claiming against another (or no) release. */
export function checkExpected(profile: Profile, expectedProfileId: string, expectedReleaseId: string): void {
  if (profile.profileId !== expectedProfileId || profile.releaseId !== expectedReleaseId.toLowerCase()) {
    refuse('PARTICIPATION_RELEASE_INACTIVE', `the active release is ${profile.profileId} ${profile.releaseId ?? '(none)'}, not ${expectedProfileId} ${expectedReleaseId}; read GET /participation-release`, {
      profileId: profile.profileId,
      releaseId: profile.releaseId,
    });
  }
}

export async function prepareClaim(deps: ParticipationDeps, principal: Principal, expected: { profileId: string; releaseId: string }, recordEffect: EffectRecorder | null): Promise<PrepareResponse> {
  const now = deps.clock.now();
  const release = await readRelease(deps);
  checkExpected(release.profile, expected.profileId, expected.releaseId);
  if (!release.verdict.claimEnabled) refuse(release.verdict.reasonCode!, `the release does not pay now: deployment ${release.verdict.state}`);
  const member = await memberOf(deps, principal);
  if (member.verdict.refusal) refuse(member.verdict.refusal, `this member cannot claim: ${member.verdict.status}`);
  const account = member.account!;
  const wallet = member.verdict.walletAddress!;
  const distributor = release.distributor!;
  const selfClaim = wallet === account;
  // Read before the transaction (no node call while it holds the lock): the voucher is for a cumulative amount, so the
  // contract pays cumulative − paid as it stands when it runs, whatever this read saw.
  const paid = await paidOnChain(deps, account);
  const row = await deps.db.transaction().execute(async (trx) => {
    // One preparation per account at a time, across processes.
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`participation:${account}`}))`.execute(trx);
    // The account's intents, and the calling agent's own (an intent it prepared for an account it no longer belongs to).
    const intents = await trx
      .selectFrom('participation_intents')
      .selectAll()
      .where((eb) => eb.or([eb('member_key', '=', account), eb('agent_id', '=', member.agentId!)]))
      .orderBy('created_at', 'desc')
      .limit(20)
      .execute();
    const open = intents.find((i) => statusAt(i, now) === 'prepared' || statusAt(i, now) === 'submitted');
    const lastPaid = intents.find((i) => i.status === 'paid' && i.member_key === account);
    const credited = await creditedTo({ ...deps, db: trx }, account);
    const verdict = claimVerdict({
      now,
      creditedWei: credited,
      paidOnChainWei: paid,
      exhausted: release.newUnitsExhausted,
      lastPaidAt: lastPaid?.paid_at ?? null,
      cadenceMs: deps.settings.cadenceMs,
      openIntent: open ? { recipient: open.recipient } : null,
      recipient: account,
      inventoryWei: release.inventoryWei,
    });
    if (verdict.refusal) refuse(verdict.refusal, refusalDetail(verdict.refusal), { deltaWei: verdict.deltaWei.toString(), intentId: open?.id ?? null });
    const id = `pri_${randomUUID().replaceAll('-', '')}`;
    const expiresAt = new Date(now.getTime() + deps.settings.voucherMs);
    const signature = await deps.signer.signTypedData({
      domain: distributorDomain(deps.chainId, distributor),
      types: DISTRIBUTION_TYPES,
      primaryType: 'Distribution',
      message: { account: account as Address, recipient: account as Address, cumulativeAmount: credited, intentId: intentKey(id), epoch: release.epoch, expiresAt: BigInt(Math.floor(expiresAt.getTime() / 1000)) },
    });
    const inserted = await trx
      .insertInto('participation_intents')
      .values({
        id,
        release_id: release.profile.releaseId!,
        member_key: account,
        agent_id: member.agentId!,
        account,
        recipient: account,
        recipient_relation: selfClaim ? 'self' : 'root',
        delivery_mode: selfClaim ? 'self_claim' : 'protocol_push',
        cumulative_amount: credited,
        delta: verdict.deltaWei,
        epoch: release.epoch,
        expires_at: expiresAt,
        signature,
        status: 'prepared',
        transaction_hash: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordEffect?.(trx, id);
    return inserted;
  });
  return respond(deps, release.profile, await pushIfProtocol(deps, row));
}

/** A protocol_push intent is submitted by the relayer at once (idempotent by the intent id); self_claim waits for the member. */
async function pushIfProtocol(deps: ParticipationDeps, row: IntentRow): Promise<IntentRow> {
  if (row.delivery_mode !== 'protocol_push' || row.transaction_hash) return row;
  const operationId = `participation:${deps.chainId}:${row.id}`;
  const tx = await deps.relayer.submit({ operationId, idempotencyKey: operationId, to: deps.distributor!.address, data: claimData(row) });
  return deps.db
    .updateTable('participation_intents')
    .set({ status: 'submitted', transaction_hash: tx.txHash.toLowerCase(), updated_at: deps.clock.now() })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function claimData(row: IntentRow): Hex {
  return encodeFunctionData({
    abi: loadArtifact('ParticipationDistributor').abi,
    functionName: 'claim',
    args: [row.account, row.recipient, BigInt(row.cumulative_amount), intentKey(row.id), BigInt(Math.floor(row.expires_at.getTime() / 1000)), row.signature],
  } as never);
}

export function respond(deps: ParticipationDeps, profile: Profile, row: IntentRow): PrepareResponse {
  const view = distributionView(row, deps.clock.now());
  return {
    profileId: profile.profileId,
    releaseId: profile.releaseId,
    intent: { id: row.id, status: view.status, expiresAt: view.expiresAt, deliveryMode: row.delivery_mode },
    transaction: row.delivery_mode === 'self_claim' ? { chainId: deps.chainId, to: deps.distributor!.address.toLowerCase(), data: claimData(row).toLowerCase(), value: '0' } : null,
  };
}

/** The prepare a keyed request made (its answer was lost). */
export async function recordedPrepare(deps: ParticipationDeps, intentId: string, profile: Profile): Promise<PrepareResponse> {
  const row = await deps.db.selectFrom('participation_intents').selectAll().where('id', '=', intentId).executeTakeFirstOrThrow();
  return respond(deps, profile, await pushIfProtocol(deps, row));
}

function refusalDetail(code: ReasonCode): string {
  switch (code) {
    case 'PARTICIPATION_DISTRIBUTION_ALREADY_PREPARED':
      return 'a distribution is prepared and its voucher has not expired: submit it and finalize, or wait for it to expire';
    case 'PARTICIPATION_DISTRIBUTION_RECIPIENT_STALE':
      return 'a prepared distribution pays a wallet that is no longer this member\'s account; wait for its voucher to expire';
    case 'PARTICIPATION_LEDGER_ACCOUNTING_INVALID':
      return 'the distributor paid this account more than it was credited: the accounts do not reconcile, and nothing is paid until the operator settles it';
    case 'PARTICIPATION_CLAIM_CADENCE_ACTIVE':
      return 'a distribution was paid recently; claims are spaced by the release\'s cadence';
    case 'NEW_PARTICIPATION_RELEASE_UNITS_EXHAUSTED':
      return 'the release has no units left to credit, and nothing was credited to this account';
    case 'NO_PARTICIPATION_RELEASE_CREDITS':
      return 'nothing has been credited to this account yet: credits come for each whole UTC day the lane is active';
    case 'PARTICIPATION_DISTRIBUTION_ZERO_DELTA':
      return 'everything credited to this account has been paid';
    case 'PARTICIPATION_INVENTORY_LOW':
      return 'the distributor holds less PM than this distribution pays';
    default:
      return code;
  }
}
