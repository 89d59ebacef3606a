/**
 * Several processes (docs/operations.md "Routing"): a call that must run in another process — on a market's order book
 * owned there, or a leader-only read — is sent there as it came (the credential, the Idempotency-Key, the API version,
 * the body) before anything runs here, and its answer is answered as it is. The owner runs the whole pipeline: it
 * authenticates, charges the rate limit, claims the key. A forwarded call carries FORWARDED_HEADER and is never
 * forwarded again (the owner's fence refuses it if ownership moved meanwhile; the caller retries).
 */
import { problem } from '../../core/error-codes.ts';
import { ProblemError } from '../../core/errors.ts';
import type { ClusterService } from '../../services/cluster/cluster.ts';
import { WALLET_SESSION_HEADER } from '../../core/wallet-session.ts';
import { VISITOR_COOKIE } from '../../services/visitors/visitors.ts';
import type { Capability, CallRoute } from '../catalog/types.ts';

/** What of a call the forwarding needs (execute.ts's CallRequest has it). */
export interface ForwardedCall {
  capability: Capability;
  credential: string | undefined;
  /** A web app visitor's session (docs/web.md "Reading without a key"), sent on as its cookie. */
  visitor?: string;
  /** A wallet session (walletAuth, or walletSession without a key), sent on as the developer header: checked here already. */
  walletCredential?: string;
  idempotencyKey: string | undefined;
  ip: string;
  params: unknown;
  query: unknown;
  body: unknown;
}

export const FORWARDED_HEADER = 'svc-forwarded';
const TIMEOUT_MS = 30_000;
/** Headers of the owner's answer that belong to the caller's answer. */
const ANSWER_HEADERS = /^(retry-after|idempotent-replayed|location|cache-control|ratelimit(-.*)?|x-ratelimit-.*|svc-version|www-authenticate)$/i;
/** Members of a problem body that the caller's answer sets afresh (its own request id) or carries as fields. */
const PROBLEM_FIELDS = new Set(['type', 'title', 'status', 'detail', 'code', 'errors', 'requestId', 'instance']);

/** The base URL of the process the call must run in, or null when it runs here. */
export async function routeOf(cluster: ClusterService, route: CallRoute, req: Pick<ForwardedCall, 'params' | 'query' | 'body'>): Promise<string | null> {
  if (route === 'leader') return cluster.routeLeader();
  if ('market' in route) {
    const market = route.market(req);
    return typeof market === 'string' && /^0x[0-9a-fA-F]{40}$/.test(market) ? cluster.routeMarket(market) : null;
  }
  const orderId = route.order(req);
  return typeof orderId === 'string' ? cluster.routeOrder(orderId) : null;
}

/** Sends the call to `target` and answers what it answered (a problem as the same ProblemError). */
export async function forwardCall(req: ForwardedCall, target: string, apiVersion: string): Promise<{ status: number; body: unknown; headers: Record<string, string> }> {
  const cap: Capability = req.capability;
  const params = (req.params ?? {}) as Record<string, unknown>;
  // Path parameters are written {name} or :name in the catalog.
  const path = cap.fullPath.replace(/\{(\w+)\}|:(\w+)/g, (_, braced: string | undefined, colon: string | undefined) => encodeURIComponent(String(params[(braced ?? colon)!] ?? '')));
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    for (const one of Array.isArray(v) ? v : [v]) if (one !== undefined) query.append(k, String(one));
  }
  const headers: Record<string, string> = { [FORWARDED_HEADER]: '1', 'svc-version': apiVersion, 'x-forwarded-for': req.ip };
  if (req.credential !== undefined) headers.authorization = `Bearer ${req.credential}`;
  else if (req.visitor !== undefined) headers.cookie = `${VISITOR_COOKIE}=${req.visitor}`;
  if (req.walletCredential !== undefined) headers[WALLET_SESSION_HEADER.toLowerCase()] = req.walletCredential;
  if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
  const hasBody = cap.method !== 'GET' && cap.method !== 'DELETE';
  if (hasBody) headers['content-type'] = 'application/json';
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${target}${path}${query.size > 0 ? `?${query}` : ''}`, {
      method: cap.method,
      headers,
      body: hasBody ? JSON.stringify(req.body ?? {}) : undefined,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    text = await res.text();
  } catch (err) {
    // The owner died or does not answer: by the time the caller retries, another process owns the book.
    throw problem('SERVICE_UNAVAILABLE', 'the process that serves this call did not answer; retry shortly (with the same Idempotency-Key)', { cause: err, headers: { 'Retry-After': '1' } });
  }
  const answerHeaders: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (ANSWER_HEADERS.test(name)) answerHeaders[name] = value;
  });
  const body = text === '' ? null : (JSON.parse(text) as unknown);
  if (res.status < 400) return { status: res.status, body, headers: answerHeaders };
  const p = (body ?? {}) as Record<string, unknown>;
  const extensions = Object.fromEntries(Object.entries(p).filter(([k]) => !PROBLEM_FIELDS.has(k)));
  throw new ProblemError(typeof p.code === 'string' ? p.code : 'INTERNAL_ERROR', res.status, typeof p.detail === 'string' ? p.detail : res.statusText, {
    errors: Array.isArray(p.errors) ? (p.errors as ProblemError['errors']) : undefined,
    extensions: Object.keys(extensions).length > 0 ? extensions : undefined,
    headers: answerHeaders,
  });
}
