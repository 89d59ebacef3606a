/**
 * Black-box reputation (docs/reputation.md): the fold that keeps each subject's tier from the facts the indexer, the
 * ledger and the resolution record, the reads (tier, rank, gates; never a score), the leaderboards, the owner-gated
 * audit trail, profiles and the comment tags. This binds the operations of this folder.
 */
import type { Kysely } from 'kysely';
import { problem } from '../../core/error-codes.ts';
import type { Principal } from '../../core/principal.ts';
import type { LeaderboardRole } from '../../core/reputation/standing.ts';
import { subjectIdOf } from '../../core/reputation/subject.ts';
import { gatesOf, type ReputationTier, type TierGates } from '../../core/reputation/tiers.ts';
import type { DB } from '../../db/schema.ts';
import { requireAgent } from '../identity/agents.ts';
import { keeperLoop, type KeeperLoop } from '../keeper-loop.ts';
import type { ReputationDeps } from './deps.ts';
import { reputationEvents, type EventsQuery, type EventsTarget } from './events-log.ts';
import { foldUntilCaughtUp } from './fold.ts';
import { createReputationGates, type WalletGates } from './gates.ts';
import { reputationLeaderboard, type LeaderboardPeriod } from './leaderboard.ts';
import { agentReputation } from './reads/agent-reputation.ts';
import { batchReputation } from './reads/batch-reputation.ts';
import { subjectReputation } from './reads/subject-reputation.ts';
import { walletReputation } from './reads/wallet-reputation.ts';
import { tiersOfWallets } from './subjects.ts';
import { profileOf } from './track-record.ts';

export type { ReputationDeps } from './deps.ts';
export type { ReputationView } from './reads/view.ts';

export interface ReputationService extends KeeperLoop {
  /** Folds every fact recorded so far (one fold at a time); answers the facts applied. */
  foldNow(): Promise<number>;
  wallet(wallet: string): ReturnType<typeof walletReputation>;
  subject(subjectId: string): ReturnType<typeof subjectReputation>;
  agent(agentId: string): ReturnType<typeof agentReputation>;
  batch(wallets: readonly string[]): ReturnType<typeof batchReputation>;
  leaderboard(p: { role: LeaderboardRole; period: LeaderboardPeriod; limit: number; offset: number }): ReturnType<typeof reputationLeaderboard>;
  events(target: EventsTarget, q: EventsQuery): ReturnType<typeof reputationEvents>;
  /** The calling agent's reputation (its bound wallet's); null without a bound wallet. */
  own(principal: Principal): ReturnType<typeof walletReputation>;
  /** The calling agent's trail (its bound wallet's subject); 409 WALLET_NOT_BOUND without one. */
  ownEvents(principal: Principal, q: EventsQuery): ReturnType<typeof reputationEvents>;
  profile(address: string): ReturnType<typeof profileOf>;
  /** What `tier` allows or limits under this deployment's free fills (GET /discover/rules). */
  gates(tier: ReputationTier): TierGates;
  /** The tier and gates a wallet's subject has now (what the create loop, the order loop and the vote enforce). */
  walletGates(wallet: string): Promise<WalletGates>;
  /** The tag a comment carries for each author: its subject and tier. */
  tags(wallets: readonly string[]): Promise<Map<string, { subjectId: string; tier: ReputationTier }>>;
}

export function createReputationService(deps: ReputationDeps & { intervalMs: number; background?: Kysely<DB> }): ReputationService {
  // Folds of one process run one after another (the transaction's compare-and-set guards across processes).
  let chain: Promise<unknown> = Promise.resolve();
  const walletGates = createReputationGates(deps);
  // An agent's bound wallet is known here even before any activity.
  const viewOfKnown = async (wallet: string) => (await walletReputation(deps, wallet))!;
  // The fold is background work: on the embedded database it waits for the requests (Database.background).
  const foldDeps = { ...deps, db: deps.background ?? deps.db };
  const foldNow = (): Promise<number> => {
    const run = chain.then(() => foldUntilCaughtUp(foldDeps));
    chain = run.catch(() => undefined);
    return run;
  };
  return {
    foldNow,
    ...keeperLoop({ name: 'reputation fold', pass: foldNow, log: deps.log, intervalMs: deps.intervalMs }),
    wallet: (wallet) => walletReputation(deps, wallet),
    subject: (subjectId) => subjectReputation(deps, subjectId),
    agent: (agentId) => agentReputation(deps, agentId),
    batch: (wallets) => batchReputation(deps, wallets),
    leaderboard: (p) => reputationLeaderboard(deps, p),
    events: (target, q) => reputationEvents(deps, target, q),
    async own(principal) {
      const wallet = (await requireAgent(deps.db, principal)).wallet_address;
      return wallet ? viewOfKnown(wallet) : null;
    },
    async ownEvents(principal, q) {
      const wallet = (await requireAgent(deps.db, principal)).wallet_address;
      if (!wallet) throw problem('WALLET_NOT_BOUND', 'reputation belongs to a wallet: bind one (POST /agents/me/bind-wallet)');
      return reputationEvents(deps, { kind: 'own', wallet }, q);
    },
    profile: (address) => profileOf(deps, address),
    gates: (tier) => gatesOf(tier, deps.freeFillsPerMonth),
    walletGates: (wallet) => walletGates.ofWallet(wallet),
    async tags(wallets) {
      const tiers = await tiersOfWallets(deps.db, wallets);
      return new Map([...tiers].map(([w, t]) => [w, { subjectId: subjectIdOf(t.key), tier: t.tier }]));
    },
  };
}
