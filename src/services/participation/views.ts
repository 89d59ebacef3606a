// The participation release's response objects (spec: state, prepare, finalize and distribution responses;
// docs/participation.md "Responses"), from the rows and facts the operations read.
import type { Selectable } from 'kysely';
import type { ParticipationIntentsTable } from '../../db/schema.ts';
import type { Profile } from './release.ts';

export type DistributionStatus = 'none' | 'prepared' | 'submitted' | 'expired_awaiting_finality' | 'projection_pending' | 'paid' | 'unpaid' | 'failed';

export interface DistributionView {
  status: DistributionStatus;
  deliveryMode: 'self_claim' | 'protocol_push' | null;
  recipientRelation: 'self' | 'root' | 'another_linked_member' | null;
  intentId: string | null;
  expiresAt: string | null;
  transactionHash: string | null;
}

export type IntentRow = Selectable<ParticipationIntentsTable>;

export const NO_DISTRIBUTION: DistributionView = { status: 'none', deliveryMode: null, recipientRelation: null, intentId: null, expiresAt: null, transactionHash: null };

/**
 * An intent's status as of `now`: a prepared voucher past its expiry is unpaid (nothing was submitted), a submitted
 * one whose voucher expired awaits finality (it may still have been mined in time).
 */
export function statusAt(row: IntentRow, now: Date): DistributionStatus {
  const expired = now.getTime() > row.expires_at.getTime();
  if (expired && row.status === 'prepared') return 'unpaid';
  if (expired && row.status === 'submitted') return 'expired_awaiting_finality';
  return row.status;
}

export function distributionView(row: IntentRow | undefined, now: Date): DistributionView {
  if (!row) return NO_DISTRIBUTION;
  return {
    status: statusAt(row, now),
    deliveryMode: row.delivery_mode,
    recipientRelation: row.recipient_relation,
    intentId: row.id,
    expiresAt: row.expires_at.toISOString(),
    transactionHash: row.transaction_hash,
  };
}

export interface DistributionResponse {
  profileId: string;
  releaseId: string | null;
  distribution: DistributionView;
  updatedAt: string;
}

export const distributionResponse = (profile: Profile, row: IntentRow, now: Date): DistributionResponse => ({
  profileId: profile.profileId,
  releaseId: profile.releaseId,
  distribution: distributionView(row, now),
  updatedAt: row.updated_at.toISOString(),
});
