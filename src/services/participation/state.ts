/**
 * GET /participation-release (docs/participation.md "State"): the profile, the deployment, the calling member, its
 * lane, its amounts and its latest distribution, as of now.
 */
import { erc20Abi } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import { dayOf, laneOf, type LaneState } from '../../core/participation/lane.ts';
import type { DeploymentState, MemberRole, MemberStatus, ReasonCode } from '../../core/participation/gates.ts';
import type { Principal } from '../../core/principal.ts';
import { qualifyingDays } from './credits.ts';
import type { ParticipationDeps } from './deps.ts';
import { memberOf } from './member.ts';
import { readRelease, type Profile } from './release.ts';
import { distributionView, type DistributionView } from './views.ts';

export interface ParticipationState {
  profile: Profile;
  deployment: { state: DeploymentState; chainId: number; claimEnabled: boolean; reasonCode: ReasonCode | null };
  member: { status: MemberStatus; role: MemberRole | null; walletAddress: string | null };
  lane: { state: LaneState; firstActivatedAt: string | null; activeUntil: string | null; lastQualifyingTradeAt: string | null; nextCreditAt: string | null };
  amounts: { bankedWei: string; confirmedPaidWei: string; nextEstimatedWei: string; communityRemainingWei: string; newUnitsExhausted: boolean };
  distribution: DistributionView;
  updatedAt: string;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export async function participationState(deps: ParticipationDeps, principal: Principal): Promise<ParticipationState> {
  const now = deps.clock.now();
  const release = await readRelease(deps);
  const member = await memberOf(deps, principal);
  const account = member.account;
  const credited = account ? await creditedTo(deps, account) : 0n;
  const paid = account && release.distributor && deps.chainLive() ? await paidOnChain(deps, account) : 0n;
  const days = account ? ((await qualifyingDays(deps, dayOf(now) - 400, [account])).get(account) ?? []) : [];
  const lastDay = days.length > 0 ? Math.max(...days) : null;
  const lane = laneOf(days, lastDay === null ? null : new Date(lastDay * 86_400_000), now, deps.settings.activeDays);
  const available = release.verdict.claimEnabled && member.verdict.status === 'active';
  const latest = account
    ? await deps.db.selectFrom('participation_intents').selectAll().where('member_key', '=', account).orderBy('created_at', 'desc').limit(1).executeTakeFirst()
    : undefined;
  return {
    profile: release.profile,
    deployment: { state: release.verdict.state, chainId: deps.chainId, claimEnabled: release.verdict.claimEnabled, reasonCode: release.verdict.reasonCode ?? member.verdict.refusal },
    member: { status: member.verdict.status, role: member.verdict.role, walletAddress: member.verdict.walletAddress },
    lane: available
      ? { state: lane.state, firstActivatedAt: iso(lane.firstActivatedAt), activeUntil: iso(lane.activeUntil), lastQualifyingTradeAt: iso(lane.lastQualifyingTradeAt), nextCreditAt: iso(lane.nextCreditAt) }
      : { state: 'unavailable', firstActivatedAt: iso(lane.firstActivatedAt), activeUntil: iso(lane.activeUntil), lastQualifyingTradeAt: iso(lane.lastQualifyingTradeAt), nextCreditAt: null },
    amounts: {
      bankedWei: (credited > paid ? credited - paid : 0n).toString(),
      confirmedPaidWei: paid.toString(),
      nextEstimatedWei: available && lane.state === 'active' && !release.newUnitsExhausted ? deps.settings.dailyCreditWei.toString() : '0',
      communityRemainingWei: release.communityRemainingWei.toString(),
      newUnitsExhausted: release.newUnitsExhausted,
    },
    distribution: distributionView(latest, now),
    updatedAt: now.toISOString(),
  };
}

export async function creditedTo(deps: ParticipationDeps, account: string): Promise<bigint> {
  const row = await deps.db.selectFrom('participation_credits').select((eb) => eb.fn.sum<string | null>('amount').as('total')).where('member_key', '=', account).executeTakeFirst();
  return BigInt(row?.total ?? 0);
}

export async function paidOnChain(deps: ParticipationDeps, account: string): Promise<bigint> {
  const d = deps.distributor!;
  return (await deps.guard(() => deps.client.readContract({ address: d.address, abi: loadArtifact('ParticipationDistributor').abi, functionName: 'paid', args: [account] } as never))) as bigint;
}

export const pmBalanceOf = (deps: ParticipationDeps, who: `0x${string}`) => deps.guard(() => deps.client.readContract({ address: deps.pm, abi: erc20Abi, functionName: 'balanceOf', args: [who] }));
