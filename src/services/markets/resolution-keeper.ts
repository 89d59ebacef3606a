/**
 * The operator's part of resolution (docs/resolution.md "The keeper"): it finalizes an unchallenged proposal once its
 * window has passed, opens vote round 1 of a disputed market, or of a closed one whose creator let resolveBy pass,
 * opens round 2 when the operator asked for an integrity restart, records a round's verdict, committing to its counted
 * ballots, once its deadline has passed, and sends a council decision whose signatures reached the threshold if the
 * send the last signature set off did not happen. Deadlines are the chain's (the latest block's time), as the
 * resolver checks them. Each action is first simulated, then sent once under a fixed relayer operation id, so a
 * retry, a restart or a second keeper never sends it twice; what it changes reaches the projection through the
 * indexer like anybody's transaction.
 */
import type { Kysely } from 'kysely';
import { encodeFunctionData, type Address, type PublicClient } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import type { Relayer } from '../../chain/relayer.ts';
import type { Logger } from '../../core/logger.ts';
import type { DB } from '../../db/schema.ts';
import { VERDICT_KINDS } from '../../core/resolution/record.ts';
import { chainNow } from '../resolution/deps.ts';
import type { ResolutionActionService } from '../resolution/actions.ts';
import { finalizeOperationId } from '../resolution/finalize.ts';
import { onChainRecord } from '../resolution/on-chain-record.ts';
import { currentAttempt } from '../chain/relay-attempts.ts';
import { keeperLoop } from '../keeper-loop.ts';
import type { VoteService } from '../resolution/votes.ts';

export interface ResolutionKeeper {
  /** One pass; returns the actions it sent ("finalize 0x…", "openVote 0x…"). */
  runOnce(): Promise<string[]>;
  start(): void;
  stop(): Promise<void>;
}

type Action =
  | { functionName: 'finalize'; market: string; why: string }
  | { functionName: 'openVote'; market: string; why: string; round: 1 | 2 }
  | { functionName: 'recordVerdict'; market: string; why: string; round: number; outcomeCount: number };

export function createResolutionKeeper(deps: {
  db: Kysely<DB>;
  client: PublicClient;
  relayer: Relayer;
  chainId: number;
  resolver: Address;
  /** The counted ballots of a round, for its verdict at the deadline. */
  votes: Pick<VoteService, 'verdict'>;
  /** Sends a council decision whose signatures reached the threshold (a retry of the send the last signature set off). */
  council?: Pick<ResolutionActionService, 'decideByCouncil'>;
  log: Logger;
  intervalMs: number;
  /** The keeper waits while the chain is down or being reconciled. */
  chainLive?: () => boolean;
}): ResolutionKeeper {
  const { db, client, chainId, log } = deps;
  const abi = loadArtifact('MarketResolver').abi;

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
    // An operator's integrity restart replaces round 1 before its verdict could be recorded.
    const restarts = await db
      .selectFrom('resolution_restarts as x')
      .innerJoin('market_resolutions as r', (j) => j.onRef('r.chain_id', '=', 'x.chain_id').onRef('r.market', '=', 'x.market'))
      .select('x.market')
      .where('x.chain_id', '=', chainId)
      .where('r.phase', '=', 'voting')
      .where('r.vote_round', '=', 1)
      .execute();
    const restarting = new Set(restarts.map((r) => r.market));
    const counting = await db
      .selectFrom('market_resolutions as r')
      .innerJoin('markets as m', (j) => j.onRef('m.chain_id', '=', 'r.chain_id').onRef('m.address', '=', 'r.market'))
      .select(['r.market', 'r.vote_round', 'm.outcome_count'])
      .where('r.chain_id', '=', chainId)
      .where('r.phase', '=', 'voting')
      .where('r.vote_deadline', '<=', chainNow)
      .execute();
    return [
      ...restarts.map((r) => ({ functionName: 'openVote' as const, market: r.market, why: 'the operator asked for an integrity restart', round: 2 as const })),
      ...counting.filter((r) => !restarting.has(r.market)).map((r) => ({ functionName: 'recordVerdict' as const, market: r.market, why: 'the vote round reached its deadline', round: r.vote_round, outcomeCount: r.outcome_count })),
      ...finalizable.map((r) => ({ functionName: 'finalize' as const, market: r.market, why: 'the challenge window closed undisputed' })),
      ...disputed.map((r) => ({ functionName: 'openVote' as const, market: r.market, why: 'the proposal was challenged', round: 1 as const })),
      ...absent.map((m) => ({ functionName: 'openVote' as const, market: m.address, why: 'resolveBy passed without a proposal', round: 1 as const })),
    ];
  };

  const act = async (a: Action): Promise<boolean> => {
    // The resolver's openVote opens the next round of whatever it finds: the projection may lag the chain, so the
    // round asked for is checked against the chain (a round-1 openVote on a market already voting would open round 2).
    if (a.functionName === 'openVote') {
      const r = await onChainRecord(deps, a.market);
      const expected = a.round === 1 ? r.phase === 'disputed' || r.phase === 'none' : r.phase === 'voting' && r.voteRound === 1;
      if (!expected) return false;
    }
    const { args, id } = await callOf(a);
    try {
      // A market from before the resolver, or one somebody else moved meanwhile, refuses: nothing to send.
      await client.simulateContract({ address: deps.resolver, abi, functionName: a.functionName, args, account: deps.relayer.address } as never);
    } catch (err) {
      log.debug({ err, market: a.market, action: a.functionName }, 'resolution keeper: the resolver refuses this action now; skipped');
      return false;
    }
    // A live attempt is waited for, not sent again; a reverted one gives way to the next (relay-step.ts).
    const attempt = await currentAttempt(deps.relayer, id);
    const tx = attempt.live
      ? await deps.relayer.waitFor(attempt.operationId)
      : await deps.relayer.send({ operationId: attempt.operationId, idempotencyKey: attempt.operationId, to: deps.resolver, data: encodeFunctionData({ abi, functionName: a.functionName, args } as never) });
    log.info({ market: a.market, action: a.functionName, why: a.why, tx: tx.txHash, state: tx.state }, 'resolution keeper: sent');
    return tx.state === 'confirmed';
  };

  /** The resolver call and its fixed relayer operation id (a vote round by its number: round 2 is the integrity restart). */
  const callOf = async (a: Action): Promise<{ args: readonly unknown[]; id: string }> => {
    const base = `resolution:${chainId}:${a.market}`;
    if (a.functionName === 'finalize') return { args: [a.market], id: finalizeOperationId(chainId, a.market) };
    if (a.functionName === 'openVote') return { args: [a.market], id: `${base}:open-vote:${a.round}` };
    // Frozen once: ballots after it are refused, and a retry sends the same verdict. NoQuorum and Deadlock carry the
    // leading outcome for information (0 when nobody voted).
    const v = await deps.votes.verdict(a.market, a.round, a.outcomeCount);
    return { args: [a.market, a.round, VERDICT_KINDS.indexOf(v.kind), v.outcome ?? v.leadingOutcome, v.ballotRoot, v.ballotCount], id: `${base}:verdict:${a.round}` };
  };

  const runOnce = async (): Promise<string[]> => {
    const sent: string[] = [];
    for (const a of await due(await chainNow(deps))) {
      // One market's failure never stops the pass: the others are still due, and it is retried on the next.
      const done = await act(a).catch((err: unknown) => {
        log.warn({ err, market: a.market, action: a.functionName }, 'resolution keeper: action failed; retrying on the next pass');
        return false;
      });
      if (done) sent.push(`${a.functionName} ${a.market}`);
    }
    if (deps.council) {
      const awaiting = await db
        .selectFrom('market_resolutions as r')
        .select('r.market')
        .where('r.chain_id', '=', chainId)
        .where('r.phase', '=', 'council')
        .where(({ exists, selectFrom }) => exists(selectFrom('council_signatures as s').select('s.market').whereRef('s.chain_id', '=', 'r.chain_id').whereRef('s.market', '=', 'r.market').whereRef('s.round', '=', 'r.vote_round')))
        .execute();
      for (const { market } of awaiting) {
        const step = await deps.council.decideByCouncil(market).catch((err: unknown) => {
          log.warn({ err, market }, 'resolution keeper: the council decision could not be sent; retrying on the next pass');
          return null;
        });
        if (step?.state === 'confirmed') sent.push(`councilDecide ${market}`);
      }
    }
    return sent;
  };

  return { runOnce, ...keeperLoop({ name: 'resolution keeper', pass: runOnce, log, intervalMs: deps.intervalMs, chainLive: deps.chainLive }) };
}
