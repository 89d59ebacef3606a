/**
 * The sender: claims due attempts and makes them. Claiming locks due deliveries of active endpoints with
 * FOR UPDATE SKIP LOCKED and leases them (counts the attempt and moves next_attempt_at past the lease) before any HTTP
 * is sent, so of several processes on one PostgreSQL exactly one makes each attempt, and an attempt a dead process
 * held is made again once its lease ends. A claim takes per endpoint only what its in-flight limit leaves room for. Each attempt POSTs the envelope signed per Standard Webhooks with every live
 * secret, then records its outcome: 2xx delivered; 410 Gone disables the endpoint at once (reason GONE); anything else
 * is retried on the schedule (src/core/webhooks/policy.ts) until the last attempt fails the delivery, and an endpoint
 * whose attempts have all failed for 5 days is disabled (reason FAILING). Disabling abandons the pending deliveries.
 */
import { sql } from 'kysely';
import { envelopeOf } from '../../core/events/envelope.ts';
import { ATTEMPT_LEASE_MS, DELIVERY_TIMEOUT_MS, DISABLE_AFTER_FAILING_MS, jitterUnit, retryDelayMs } from '../../core/webhooks/policy.ts';
import { signatureHeader } from '../../core/webhooks/signature.ts';
import type { WebhookDisabledReason } from '../../db/schema.ts';
import { abandonPending, type WebhookDeps } from './deps.ts';
import { postWebhook } from './post.ts';

export interface ClaimedAttempt {
  id: string;
  endpointId: string;
  eventSeq: string;
  /** This attempt's number (1 for the first). */
  attempt: number;
}

interface Outcome {
  statusCode: number | null;
  error: string | null;
  retryAfterSeconds: number | null;
}

export interface ClaimLimits {
  /** Attempts claimed at most. */
  limit: number;
  /** Attempts one endpoint may have in flight in this process. */
  perEndpoint: number;
  /** Attempts in flight in this process, by endpoint id: an endpoint gets only what it has room for. */
  inFlight: ReadonlyMap<string, number>;
}

/**
 * Claims due attempts of active endpoints, oldest due first, at most `perEndpoint` minus what the endpoint has in flight
 * each (so a slow endpoint holds up only itself), and leases them. The receiver gets them in no guaranteed order
 * (Standard Webhooks): the envelope's sequence orders them.
 */
export async function claimDue(deps: Pick<WebhookDeps, 'db' | 'clock'>, limits: ClaimLimits): Promise<ClaimedAttempt[]> {
  if (limits.limit <= 0) return [];
  const now = deps.clock.now();
  const busy = JSON.stringify(Object.fromEntries(limits.inFlight));
  return deps.db.transaction().execute(async (trx) => {
    // Per endpoint, its oldest due deliveries up to its room, locked (SKIP LOCKED: another process's claim is left to it).
    const due = await sql<{ id: string }>`
      SELECT d.id FROM webhook_endpoints e
      CROSS JOIN LATERAL (
        SELECT id, next_attempt_at, event_seq FROM webhook_deliveries
        WHERE endpoint_id = e.id AND status = 'pending' AND next_attempt_at <= ${now}
        ORDER BY next_attempt_at, event_seq
        LIMIT greatest(0, ${limits.perEndpoint}::int - coalesce((${busy}::jsonb ->> e.id::text)::int, 0))
        FOR UPDATE SKIP LOCKED
      ) d
      WHERE e.status = 'active'
      ORDER BY d.next_attempt_at, d.event_seq
      LIMIT ${limits.limit}::int`.execute(trx);
    if (due.rows.length === 0) return [];
    const leased = await trx
      .updateTable('webhook_deliveries')
      .set({ attempts: sql<number>`attempts + 1`, last_attempt_at: now, next_attempt_at: new Date(now.getTime() + ATTEMPT_LEASE_MS) })
      .where(
        'id',
        'in',
        due.rows.map((d) => d.id),
      )
      .returning(['id', 'endpoint_id', 'event_seq', 'attempts'])
      .execute();
    return leased.map((r) => ({ id: r.id, endpointId: r.endpoint_id, eventSeq: r.event_seq, attempt: r.attempts }));
  });
}

/** Makes one claimed attempt and records its outcome (within DELIVERY_TIMEOUT_MS plus two short writes). */
export async function makeAttempt(deps: WebhookDeps, claimed: ClaimedAttempt): Promise<void> {
  const endpoint = await deps.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', claimed.endpointId).executeTakeFirst();
  const event = await deps.db.selectFrom('events').selectAll().where('seq', '=', claimed.eventSeq).executeTakeFirst();
  // Deleted meanwhile (its deliveries went with it), or disabled since the claim (they were abandoned): nothing to send.
  if (!endpoint || !event || endpoint.status !== 'active') return;
  const now = deps.clock.now();
  const secrets = liveSecrets(deps, endpoint, now);
  let outcome: Outcome;
  if (secrets.length === 0) {
    outcome = { statusCode: null, error: 'no signing secret could be opened (WEBHOOK_SECRET_KEY or the operator key changed?); rotate the secret', retryAfterSeconds: null };
  } else {
    const envelope = envelopeOf({ seq: BigInt(event.seq), type: event.type, chainId: event.chain_id, marketAddress: event.market_address, agentId: event.agent_id, payload: event.payload as Record<string, unknown>, createdAt: event.created_at });
    const body = JSON.stringify(envelope);
    const msgId = envelope.id;
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'svc-webhooks/1',
      'webhook-id': msgId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, msgId, timestamp, body),
    };
    outcome = await postWebhook(deps.targets, endpoint.url, headers, body, DELIVERY_TIMEOUT_MS).then(
      (res) =>
        res.status >= 200 && res.status < 300
          ? { statusCode: res.status, error: null, retryAfterSeconds: null }
          : { statusCode: res.status, error: `HTTP ${res.status}${res.excerpt ? `: ${res.excerpt}` : ''}`, retryAfterSeconds: retryAfterSeconds(res.retryAfter, deps.clock.now()) },
      (err: unknown) => ({ statusCode: null, error: err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? 'network error'}: ${err.message}` : String(err), retryAfterSeconds: null }),
    );
  }
  await record(deps, claimed, outcome);
}

/** The current secret, and the previous one while its overlap lasts; a secret that no longer opens is left out (and logged). */
function liveSecrets(deps: WebhookDeps, endpoint: { id: string; secret_sealed: string; previous_secret_sealed: string | null; previous_secret_expires_at: Date | null }, now: Date): string[] {
  const sealed = [endpoint.secret_sealed];
  if (endpoint.previous_secret_sealed && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > now) sealed.push(endpoint.previous_secret_sealed);
  return sealed.flatMap((s) => {
    try {
      return [deps.secrets.open(s, endpoint.id)];
    } catch (err) {
      deps.log.error({ err, endpoint: endpoint.id }, 'webhooks: a signing secret does not open (WEBHOOK_SECRET_KEY or the operator key changed?)');
      return [];
    }
  });
}

/** Retry-After as seconds from now: delta-seconds or an HTTP date. */
function retryAfterSeconds(header: string | null, now: Date): number | null {
  if (header === null) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, (at - now.getTime()) / 1000);
}

async function record(deps: WebhookDeps, claimed: ClaimedAttempt, outcome: Outcome): Promise<void> {
  const now = deps.clock.now();
  const delivered = outcome.error === null;
  const gone = outcome.statusCode === 410;
  const delay = delivered || gone ? null : retryDelayMs(claimed.attempt, jitterUnit(`${claimed.id}:${claimed.attempt}`), outcome.retryAfterSeconds);
  await deps.db.transaction().execute(async (trx) => {
    // A replay or a deletion since the claim wins: this attempt's outcome is then not the delivery's.
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: delivered ? 'delivered' : delay === null ? 'failed' : 'pending',
        next_attempt_at: delay === null ? null : new Date(now.getTime() + delay),
        delivered_at: delivered ? now : null,
        last_status_code: outcome.statusCode,
        last_error: outcome.error,
      })
      .where('id', '=', claimed.id)
      .where('status', '=', 'pending')
      .where('attempts', '=', claimed.attempt)
      .returning('id')
      .executeTakeFirst();
    if (!updated) return;
    if (delivered) {
      await trx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', claimed.endpointId).where('failing_since', 'is not', null).execute();
      return;
    }
    const endpoint = await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: sql<Date>`coalesce(failing_since, ${now.toISOString()}::timestamptz)` })
      .where('id', '=', claimed.endpointId)
      .returning(['failing_since', 'status'])
      .executeTakeFirst();
    const failingFor = endpoint?.failing_since ? now.getTime() - endpoint.failing_since.getTime() : 0;
    const reason: WebhookDisabledReason | null = gone ? 'GONE' : failingFor >= DISABLE_AFTER_FAILING_MS ? 'FAILING' : null;
    if (reason && endpoint?.status === 'active') {
      await trx.updateTable('webhook_endpoints').set({ status: 'disabled', disabled_reason: reason, updated_at: now }).where('id', '=', claimed.endpointId).execute();
      await abandonPending(trx, claimed.endpointId);
      deps.log.warn({ endpoint: claimed.endpointId, reason }, 'webhooks: endpoint disabled');
    }
  });
}
