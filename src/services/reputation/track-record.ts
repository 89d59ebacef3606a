/**
 * GET /profile/:address (docs/reputation.md "Profiles"): a counterparty's track record — the wallet's own facts as
 * the fold counted them (markets created and how they ended, disputes, ballots, trades and volume per collateral),
 * its live markets now, the agent bound to it — and its subject's reputation (tier, rank, gates). A wallet nothing is
 * known of has an empty record and no reputation.
 */
import { getAddress } from 'viem';
import { countLiveMarkets } from '../markets/listing/count-live-markets.ts';
import type { ReputationDeps } from './deps.ts';
import type { ReputationView } from './reads/view.ts';
import { walletReputation } from './reads/wallet-reputation.ts';

export interface TrackRecord {
  marketsCreated: number;
  /** Open or closed now (created, not yet proposed, resolved or void). */
  marketsLive: number;
  /** Created markets that finished: resolved clean, or with the creation bond slashed. */
  marketsResolved: number;
  marketsResolvedClean: number;
  disputes: { lost: number; creatorAbsences: number; challengesUpheld: number; challengesLost: number };
  ballots: { agreedWithVerdict: number; againstVerdict: number };
  trades: number;
  /** Per collateral, in its base units (USDC, PM; PLAY for order books), fees excluded. */
  volume: { symbol: string; trades: number; volume: string }[];
}

export interface Profile {
  address: string;
  chainId: number;
  agent: { id: string; name: string; label: 'AI' | null } | null;
  trackRecord: TrackRecord;
  reputation: ReputationView | null;
}

export async function profileOf(deps: Pick<ReputationDeps, 'db' | 'chainId' | 'freeFillsPerMonth'>, address: string): Promise<Profile> {
  const { db } = deps;
  const wallet = address.toLowerCase();
  const [row, volumes, agent, live] = await Promise.all([
    db.selectFrom('reputation_wallets').selectAll().where('wallet', '=', wallet).executeTakeFirst(),
    db.selectFrom('reputation_wallet_volumes').select(['symbol', 'trades', 'volume']).where('wallet', '=', wallet).orderBy('symbol').execute(),
    db.selectFrom('agents').select(['id', 'name', 'claimed_at']).where('wallet_address', '=', wallet).executeTakeFirst(),
    countLiveMarkets(db, { chainId: deps.chainId, creator: wallet }),
  ]);
  const clean = row?.resolved_clean ?? 0;
  const slashed = (row?.disputes_lost ?? 0) + (row?.creator_absences ?? 0);
  return {
    address: getAddress(wallet),
    chainId: deps.chainId,
    // A claimed agent trades on its own record, labelled AI (docs/identity.md "Claimed agents").
    agent: agent ? { id: agent.id, name: agent.name, label: agent.claimed_at ? 'AI' : null } : null,
    trackRecord: {
      marketsCreated: row?.markets_created ?? 0,
      marketsLive: live,
      marketsResolved: clean + slashed,
      marketsResolvedClean: clean,
      disputes: { lost: row?.disputes_lost ?? 0, creatorAbsences: row?.creator_absences ?? 0, challengesUpheld: row?.challenges_upheld ?? 0, challengesLost: row?.challenges_lost ?? 0 },
      ballots: { agreedWithVerdict: row?.ballots_agreed ?? 0, againstVerdict: row?.ballots_disagreed ?? 0 },
      trades: Number(row?.trades ?? 0),
      volume: volumes.map((v) => ({ symbol: v.symbol, trades: Number(v.trades), volume: String(v.volume) })),
    },
    reputation: await walletReputation(deps, wallet),
  };
}
