/**
 * POST /participation-release/claim/finalize and GET /participation-release/distributions/:intentId
 * (docs/participation.md "Finalize"): the submitted transaction is reconciled with the chain, which is the authority.
 * Paid only when the transaction is mined at the required depth and carries the distributor's Distributed event for
 * exactly this intent (its id, account, recipient and cumulative amount); a transaction that does not is refused and
 * changes nothing, so a forged or mismatched hash cannot mark an intent paid.
 */
import { decodeEventLog, type Hex } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import { problem } from '../../core/error-codes.ts';
import type { Principal } from '../../core/principal.ts';
import type { ParticipationDeps } from './deps.ts';
import { memberOf } from './member.ts';
import { checkExpected, refuse } from './prepare.ts';
import { intentKey } from '../../core/participation/voucher.ts';
import { profileOf } from './release.ts';
import { distributionResponse, type DistributionResponse, type IntentRow } from './views.ts';

async function intentOf(deps: ParticipationDeps, principal: Principal, intentId: string): Promise<{ row: IntentRow; account: string | null }> {
  const member = await memberOf(deps, principal);
  const row = await deps.db.selectFrom('participation_intents').selectAll().where('id', '=', intentId).executeTakeFirst();
  // Another member's intent is not found, like an unknown one.
  const mine = row && (row.agent_id === member.agentId || (member.account !== null && row.member_key === member.account));
  if (!row || !mine) throw problem('NOT_FOUND', 'no participation distribution of this member has that intent id');
  return { row, account: member.account };
}

export async function readDistribution(deps: ParticipationDeps, principal: Principal, intentId: string): Promise<DistributionResponse> {
  const { row } = await intentOf(deps, principal, intentId);
  return distributionResponse(profileOf(deps), row, deps.clock.now());
}

export async function finalizeClaim(
  deps: ParticipationDeps,
  principal: Principal,
  input: { expectedProfileId: string; expectedReleaseId: string; intentId: string; transactionHash: Hex },
): Promise<DistributionResponse> {
  const profile = profileOf(deps);
  checkExpected(profile, input.expectedProfileId, input.expectedReleaseId);
  const { row, account } = await intentOf(deps, principal, input.intentId);
  const now = deps.clock.now();
  const answer = (r: IntentRow) => distributionResponse(profile, r, deps.clock.now());
  if (row.status === 'paid') {
    if (row.transaction_hash !== input.transactionHash.toLowerCase()) refuse('PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH', `this distribution was paid by ${row.transaction_hash}, not ${input.transactionHash}`);
    return answer(row);
  }
  if (row.account !== account) refuse('PARTICIPATION_DISTRIBUTION_RECIPIENT_STALE', 'the distribution pays an account this member no longer has; let its voucher expire and prepare again');
  const set = (patch: Partial<Pick<IntentRow, 'status' | 'transaction_hash' | 'paid_at'>>) =>
    deps.db.updateTable('participation_intents').set({ ...patch, updated_at: deps.clock.now() }).where('id', '=', row.id).where('status', '!=', 'paid').returningAll().executeTakeFirstOrThrow();
  const receipt = await deps.guard(() => deps.client.getTransactionReceipt({ hash: input.transactionHash }).catch(() => null));
  const expired = now.getTime() > row.expires_at.getTime();
  if (!receipt) {
    if (expired) {
      await set({ status: 'unpaid' });
      refuse('PARTICIPATION_DISTRIBUTION_VOUCHER_EXPIRED', 'the voucher expired and the chain has no such transaction mined; prepare a new distribution');
    }
    await set({ status: 'submitted', transaction_hash: input.transactionHash.toLowerCase() });
    refuse('PARTICIPATION_DISTRIBUTION_FINALITY_PENDING', 'the transaction is not mined yet; finalize again shortly');
  }
  if (receipt.status !== 'success') {
    // A reverted claim paid nothing; the intent failed (the voucher may be used again by a new transaction until it expires).
    if (matchesIntent(deps, row, receipt.to)) return answer(await set({ status: 'failed', transaction_hash: input.transactionHash.toLowerCase() }));
    refuse('PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH', 'the transaction was not sent to this release\'s distributor');
  }
  if (!carriesDistribution(deps, row, receipt.logs)) refuse('PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH', 'the transaction does not carry the Distributed event of this intent (intent id, account, recipient and amount)');
  const head = await deps.guard(() => deps.client.getBlockNumber({ cacheTime: 0 }));
  if (head - receipt.blockNumber + 1n < BigInt(deps.confirmations)) {
    await set({ status: 'projection_pending', transaction_hash: input.transactionHash.toLowerCase() });
    refuse('PARTICIPATION_DISTRIBUTION_FINALITY_PENDING', `the transaction has ${head - receipt.blockNumber + 1n} of ${deps.confirmations} confirmations; finalize again shortly`);
  }
  return answer(await set({ status: 'paid', transaction_hash: input.transactionHash.toLowerCase(), paid_at: now }));
}

const matchesIntent = (deps: ParticipationDeps, _row: IntentRow, to: string | null) => to !== null && to.toLowerCase() === deps.distributor?.address.toLowerCase();

function carriesDistribution(deps: ParticipationDeps, row: IntentRow, logs: readonly { address: string; data: Hex; topics: readonly Hex[] }[]): boolean {
  const abi = loadArtifact('ParticipationDistributor').abi;
  const distributor = deps.distributor?.address.toLowerCase();
  return logs.some((log) => {
    if (log.address.toLowerCase() !== distributor) return false;
    try {
      const event = decodeEventLog({ abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
      if (event.eventName !== 'Distributed') return false;
      const a = event.args as unknown as { intentId: Hex; account: string; recipient: string; cumulativeAmount: bigint };
      return a.intentId === intentKey(row.id) && a.account.toLowerCase() === row.account && a.recipient.toLowerCase() === row.recipient && a.cumulativeAmount === BigInt(row.cumulative_amount);
    } catch {
      return false;
    }
  });
}
