/**
 * The participation release (docs/participation.md): the member's state, claim prepare and finalize, the
 * distribution read, the operator's quarantine, and the crediting pass the chain-writing process runs. This binds
 * the operations of this folder.
 */
import type { Principal } from '../../core/principal.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { keeperLoop } from '../keeper-loop.ts';
import { creditPass } from './credits.ts';
import type { ParticipationDeps } from './deps.ts';
import { finalizeClaim, readDistribution } from './finalize.ts';
import { prepareClaim, recordedPrepare, type PrepareResponse } from './prepare.ts';
import { profileOf, type Profile } from './release.ts';
import { setQuarantine } from './settings.ts';
import { participationState, type ParticipationState } from './state.ts';
import type { DistributionResponse } from './views.ts';

export type { ParticipationDeps, ParticipationSettings } from './deps.ts';
export type { PrepareResponse } from './prepare.ts';
export type { Profile } from './release.ts';
export type { ParticipationState } from './state.ts';
export type { DistributionResponse } from './views.ts';

export interface ParticipationService {
  profile(): Profile;
  /** The distributor's deployment record, for /discover/token-release. */
  distributor(): ParticipationDeps['distributor'];
  state(principal: Principal): Promise<ParticipationState>;
  prepare(principal: Principal, expected: { profileId: string; releaseId: string }, recordEffect: EffectRecorder | null): Promise<PrepareResponse>;
  recordedPrepare(intentId: string): Promise<PrepareResponse>;
  finalize(principal: Principal, input: Parameters<typeof finalizeClaim>[2]): Promise<DistributionResponse>;
  distribution(principal: Principal, intentId: string): Promise<DistributionResponse>;
  /** The operator's switch: a quarantined route pays nothing (PARTICIPATION_ROUTE_QUARANTINED). */
  quarantine(on: boolean): Promise<void>;
  /** One crediting pass now (tests; the loop runs them every intervalMs). */
  creditNow(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export function createParticipationService(deps: ParticipationDeps & { intervalMs: number }): ParticipationService {
  let last: Promise<unknown> = Promise.resolve();
  const credit = (): Promise<number> => {
    const next = last.catch(() => undefined).then(() => creditPass(deps));
    last = next;
    return next;
  };
  const loop = keeperLoop({ name: 'participation-credits', pass: credit, log: deps.log, intervalMs: deps.intervalMs, chainLive: deps.chainLive });
  return {
    profile: () => profileOf(deps),
    distributor: () => deps.distributor,
    state: (principal) => participationState(deps, principal),
    prepare: (principal, expected, recordEffect) => prepareClaim(deps, principal, expected, recordEffect),
    recordedPrepare: (intentId) => recordedPrepare(deps, intentId, profileOf(deps)),
    finalize: (principal, input) => finalizeClaim(deps, principal, input),
    distribution: (principal, intentId) => readDistribution(deps, principal, intentId),
    quarantine: (on) => setQuarantine(deps, on),
    creditNow: credit,
    start: () => loop.start(),
    async stop() {
      await loop.stop();
      await last.catch(() => undefined);
    },
  };
}
