/**
 * The operator's part of resolution (docs/resolution.md "The keeper"): it finalizes an unchallenged proposal once
 * its window has passed, opens the vote round of a disputed market, or of a closed one whose creator let resolveBy
 * pass, and records a round's verdict, committing to its counted ballots, once its deadline has passed. Deadlines are the chain's (the latest block's time), as the resolver checks them. Each action is first
 * simulated, then sent once under a fixed relayer operation id, so a retry, a restart or a second keeper never sends
 * it twice; what it changes reaches the projection through the indexer like anybody's transaction.
 */
import type { Kysely } from 'kysely';
import { encodeFunctionData, type Address, type PublicClient } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import type { Relayer } from '../../chain/relayer.ts';
import type { Logger } from '../../core/logger.ts';
import type { DB } from '../../db/schema.ts';
import { VERDICT_KINDS } from '../../core/resolution/record.ts';
import { chainNow } from '../resolution/deps.ts';
import type { VoteService } from '../resolution/votes.ts';

export interface ResolutionKeeper {
  /** One pass; returns the actions it sent ("finalize 0x…", "openVote 0x…"). */
  runOnce(): Promise<string[]>;
  start(): void;
  stop(): Promise<void>;
}

type Action =
  | { functionName: 'finalize' | 'openVote'; market: string; why: string }
  | { functionName: 'recordVerdict'; market: string; why: string; round: number; outcomeCount: number };

export function createResolutionKeeper(deps: {
  db: Kysely<DB>;
  client: PublicClient;
  relayer: Relayer;
  chainId: number;
  resolver: Address;
  /** The counted ballots of a round, for its verdict at the deadline. */
  votes: Pick<VoteService, 'verdict'>;
  log: Logger;
  intervalMs: number;
  /** The keeper waits while the chain is down or being reconciled. */
  chainLive?: () => boolean;
}): ResolutionKeeper {
  const { db, client, chainId, log } = deps;
  const abi = loadArtifact('MarketResolver').abi;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;

  const due = async (chainNow: Date): Promise<Action[]> => {
    const finalizable = await db.selectFrom('market_resolutions').select('market').where('chain_id', '=', chainId).where('phase', '=', 'proposed').where('challenge_deadline', '<=', chainNow).execute();
    const disputed = await db.selectFrom('market_resolutions').select(['market', 'vote_round']).where('chain_id', '=', chainId).where('phase', '=', 'disputed').execute();
    const absent = await db
      .selectFrom('markets')
      .select('address')
      .where('chain_id', '=', chainId)
      .where('state', '=', 'closed')
      .where('cancel_reason', 'is', null)
      .where('resolve_by', '<', chainNow)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('market_resolutions as r').select('r.market').where('r.chain_id', '=', chainId).whereRef('r.market', '=', 'markets.address'))))
      .execute();
    const counting = await db
      .selectFrom('market_resolutions as r')
      .innerJoin('markets as m', (j) => j.onRef('m.chain_id', '=', 'r.chain_id').onRef('m.address', '=', 'r.market'))
      .select(['r.market', 'r.vote_round', 'm.outcome_count'])
      .where('r.chain_id', '=', chainId)
      .where('r.phase', '=', 'voting')
      .where('r.vote_deadline', '<=', chainNow)
      .execute();
    return [
      ...counting.map((r) => ({ functionName: 'recordVerdict' as const, market: r.market, why: 'the vote round reached its deadline', round: r.vote_round, outcomeCount: r.outcome_count })),
      ...finalizable.map((r) => ({ functionName: 'finalize' as const, market: r.market, why: 'the challenge window closed undisputed' })),
      ...disputed.map((r) => ({ functionName: 'openVote' as const, market: r.market, why: 'the proposal was challenged' })),
      ...absent.map((m) => ({ functionName: 'openVote' as const, market: m.address, why: 'resolveBy passed without a proposal' })),
    ];
  };

  const act = async (a: Action): Promise<boolean> => {
    const { args, id } = await callOf(a);
    try {
      // A market from before the resolver, or one somebody else moved meanwhile, refuses: nothing to send.
      await client.simulateContract({ address: deps.resolver, abi, functionName: a.functionName, args, account: deps.relayer.address } as never);
    } catch (err) {
      log.debug({ err, market: a.market, action: a.functionName }, 'resolution keeper: the resolver refuses this action now; skipped');
      return false;
    }
    const tx = await deps.relayer.send({ operationId: id, idempotencyKey: id, to: deps.resolver, data: encodeFunctionData({ abi, functionName: a.functionName, args } as never) });
    log.info({ market: a.market, action: a.functionName, why: a.why, tx: tx.txHash, state: tx.state }, 'resolution keeper: sent');
    return tx.state === 'confirmed';
  };

  /** The resolver call and its fixed relayer operation id (a second round, an integrity restart, is not the keeper's). */
  const callOf = async (a: Action): Promise<{ args: readonly unknown[]; id: string }> => {
    const base = `resolution:${chainId}:${a.market}`;
    if (a.functionName !== 'recordVerdict') return { args: [a.market], id: a.functionName === 'finalize' ? `${base}:finalize` : `${base}:open-vote:1` };
    const v = await deps.votes.verdict(a.market, a.round, a.outcomeCount);
    // NoQuorum and Deadlock carry the leading outcome for information (0 when nobody voted).
    const leading = v.outcome ?? v.counts.indexOf(Math.max(...v.counts));
    const kind = VERDICT_KINDS.indexOf(v.kind);
    return { args: [a.market, a.round, kind, leading, v.ballotRoot, v.ballotCount], id: `${base}:verdict:${a.round}` };
  };

  const runOnce = async (): Promise<string[]> => {
    const sent: string[] = [];
    for (const a of await due(await chainNow(deps))) {
      if (await act(a)) sent.push(`${a.functionName} ${a.market}`);
    }
    return sent;
  };

  return {
    runOnce,
    start() {
      timer = setInterval(() => {
        if (running || (deps.chainLive && !deps.chainLive())) return;
        running = runOnce()
          .catch((err: unknown) => log.error({ err }, 'resolution keeper: pass failed; retrying on the next tick'))
          .finally(() => {
            running = null;
          });
      }, deps.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
