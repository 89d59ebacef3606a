// Order load for the crash suite: each agent, one request at a time, places limit orders on the book (buys and
// sells of both outcomes around 50 %, GTC or IOC, so fills of every kind settle in the ledger) and cancels some of
// its resting ones. Its stream of choices comes from its own seeded PRNG.
import type { Agent } from './client.ts';
import type { Journal, Write } from './journal.ts';
import type { Prng } from './prng.ts';

export interface LoadRound {
  index: number;
  market: string;
  /** Set when the load must stop (the kill happened, or the round has what it needs). */
  stopped: boolean;
  /** At most this many sends per agent in the round (write budgets are 120 per key and minute). */
  maxSends: number;
  /** Called after each acknowledged write of the load. */
  onAck(w: Write): void;
  /** Resolves once the chain is up again; awaited after a 503 instead of sending more into it. */
  chainUp(): Promise<void>;
}

function nextWrite(journal: Journal, agent: Agent, rnd: Prng, market: string): Write {
  const cancelled = new Set(journal.acked('/orderbook/cancel-order').map((w) => w.orderId));
  const resting = journal
    .acked('/orderbook/place-order')
    .filter((w) => w.agent === agent && w.answer!.body.status === 'resting' && !cancelled.has(w.orderId));
  if (resting.length > 0 && rnd.chance(0.3)) return journal.create(agent, '/orderbook/cancel-order', { orderId: rnd.pick(resting).orderId });
  return journal.create(agent, '/orderbook/place-order', {
    market,
    outcome: rnd.int(0, 1),
    action: rnd.chance(0.8) ? 'buy' : 'sell',
    price: String(rnd.int(40, 60) / 100),
    shares: String(rnd.int(1, 5) * 1_000_000),
    tif: rnd.chance(0.2) ? 'IOC' : 'GTC',
  });
}

/** One agent's load until the round stops it; a send that got no answer (svc killed) ends it. */
export async function runAgentLoad(journal: Journal, agent: Agent, rnd: Prng, round: LoadRound): Promise<void> {
  for (let sends = 0; !round.stopped && sends < round.maxSends; sends++) {
    const w = nextWrite(journal, agent, rnd, round.market);
    const sent = await journal.send(w, round.index, 'load');
    if (round.stopped || sent.status === 'network' || sent.status === 429) return;
    if (w.state === 'acked') round.onAck(w);
    if (sent.status === 503) await round.chainUp();
  }
}
