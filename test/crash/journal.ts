// What the crash suite's clients sent and what they were told: every write with its Idempotency-Key, each send of
// it and its answer. A write is acknowledged by its first 2xx; until an answer is final (2xx, or a stored 4xx) it is
// pending and is sent again with the same key, as a client would after a restart.
import { AGENT_API, call, type Agent, type Answer } from './client.ts';

export type WritePath = '/orderbook/place-order' | '/orderbook/cancel-order';

export interface Send {
  round: number;
  phase: 'load' | 'retry' | 'replay';
  status: number | 'network';
  code?: string;
  replayed: boolean;
  detail?: string;
}

export interface Write {
  key: string;
  agent: Agent;
  path: WritePath;
  body: Record<string, unknown>;
  state: 'pending' | 'acked' | 'refused';
  sends: Send[];
  /** The first final answer (its status and body). */
  answer?: { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  /** The order the answer names (placed or cancelled). */
  orderId?: string;
}

export interface Counts {
  sent: number;
  acknowledged: number;
  refused: number;
  retried: number;
  /** Retries of an unanswered write answered as a replay: its effect had happened before the crash. */
  replayed: number;
  /** Retries of an unanswered write that ran it (nothing of it had happened). */
  ranOnRetry: number;
  replayChecks: number;
  unavailable: { place: number; cancel: number };
  inProgress: number;
  rateLimited: number;
  network: number;
}

/** 4xx answers a write may end with here: a sell without the shares. */
const FINAL_REFUSALS = new Set(['INSUFFICIENT_BALANCE']);

export class Journal {
  readonly writes: Write[] = [];
  /** Answers that are bugs (a 500, a replay with another id, a refusal that should not happen…), with their context. */
  readonly anomalies: string[] = [];
  readonly counts: Counts = {
    sent: 0,
    acknowledged: 0,
    refused: 0,
    retried: 0,
    replayed: 0,
    ranOnRetry: 0,
    replayChecks: 0,
    unavailable: { place: 0, cancel: 0 },
    inProgress: 0,
    rateLimited: 0,
    network: 0,
  };
  private seq = 0;

  constructor(
    private readonly base: () => string,
    private readonly label: string,
  ) {}

  create(agent: Agent, path: WritePath, body: Record<string, unknown>): Write {
    const w: Write = { key: `crash-${this.label}-${agent.index}-${++this.seq}`, agent, path, body, state: 'pending', sends: [] };
    this.writes.push(w);
    return w;
  }

  pending(): Write[] {
    return this.writes.filter((w) => w.state === 'pending');
  }

  acked(path?: WritePath): Write[] {
    return this.writes.filter((w) => w.state === 'acked' && (path === undefined || w.path === path));
  }

  /** Sends the write with its key and records what came back. */
  async send(w: Write, round: number, phase: Send['phase']): Promise<Send> {
    if (phase === 'load') this.counts.sent++;
    if (phase === 'retry') this.counts.retried++;
    if (phase === 'replay') this.counts.replayChecks++;
    let res: Answer;
    try {
      res = await call(this.base(), 'POST', `${AGENT_API}${w.path}`, { key: w.agent.key, idempotencyKey: w.key, body: w.body });
    } catch (err) {
      this.counts.network++;
      const send: Send = { round, phase, status: 'network', replayed: false, detail: (err as Error).cause ? String((err as { cause: unknown }).cause) : (err as Error).message };
      w.sends.push(send);
      if (phase === 'replay') this.anomalies.push(`round ${round}: replay of ${w.key} got no answer: ${send.detail}`);
      return send;
    }
    const remaining = res.headers.get('ratelimit-remaining');
    if (remaining !== null) w.agent.writesLeft = Number(remaining);
    const replayed = res.headers.get('idempotent-replayed') === 'true';
    const code = typeof res.body === 'object' && res.body !== null ? (res.body.code as string | undefined) : undefined;
    const send: Send = { round, phase, status: res.status, code, replayed };
    w.sends.push(send);
    const where = `round ${round}, ${phase} of ${w.path} ${w.key} (agent ${w.agent.index}, ${JSON.stringify(w.body)})`;

    if (res.status === 429) {
      this.counts.rateLimited++;
      return send;
    }
    if (phase === 'replay') {
      // An acknowledged write sent again: the same answer, marked as a replay.
      if (!replayed || res.status !== w.answer!.status || res.body?.id !== w.orderId) {
        this.anomalies.push(`${where}: expected a replay of ${w.answer!.status} ${w.orderId}, got ${res.status} replayed=${replayed} ${JSON.stringify(res.body)}`);
      }
      return send;
    }
    if (res.status >= 200 && res.status < 300) {
      if (phase === 'load' && replayed) this.anomalies.push(`${where}: a new key answered as a replay`);
      w.state = 'acked';
      w.answer = { status: res.status, body: res.body };
      w.orderId = res.body?.id;
      this.counts.acknowledged++;
      if (phase === 'retry') this.counts[replayed ? 'replayed' : 'ranOnRetry']++;
      if (typeof w.orderId !== 'string') this.anomalies.push(`${where}: ${res.status} without an order id: ${JSON.stringify(res.body)}`);
      return send;
    }
    if (res.status === 503) {
      // Chain-dependent writes are refused while the node is down, before the key is claimed: retried later.
      if (w.path === '/orderbook/place-order') this.counts.unavailable.place++;
      else this.counts.unavailable.cancel++;
      if (code !== 'SERVICE_UNAVAILABLE' || res.headers.get('retry-after') === null) this.anomalies.push(`${where}: 503 without SERVICE_UNAVAILABLE and Retry-After: ${JSON.stringify(res.body)}`);
      return send;
    }
    if (res.status === 409 && code === 'IDEMPOTENCY_IN_PROGRESS') {
      // A claim left by the killed process: taken over once its lease has run out.
      this.counts.inProgress++;
      return send;
    }
    if (res.status >= 400 && res.status < 500 && code !== undefined && FINAL_REFUSALS.has(code)) {
      w.state = 'refused';
      w.answer = { status: res.status, body: res.body };
      this.counts.refused++;
      return send;
    }
    this.anomalies.push(`${where}: ${res.status} ${JSON.stringify(res.body)}`);
    return send;
  }
}
