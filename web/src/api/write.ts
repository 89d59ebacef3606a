// The app's writes and POST reads, as the signed-in wallet (docs/web.md "Trading with a wallet session"): same-origin
// JSON with the session cookie and the CSRF guard header, an Idempotency-Key on writes. A refusal is a ProblemError:
// an ApiError (its code becomes words) that keeps the problem's body, whose members some steps read (approvals).
import { ApiError } from './client.ts';

export class ProblemError extends ApiError {
  constructor(
    status: number,
    code: string,
    detail: string,
    readonly problem: Record<string, unknown>,
  ) {
    super(status, code, detail);
    this.name = 'ProblemError';
  }
}

/** Sends JSON to the same origin; answers the body, or throws a ProblemError (NETWORK_ERROR when no answer came). */
export async function sendJson<T>(method: 'GET' | 'POST', path: string, body?: unknown, o: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'svc-csrf': '1' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (o.idempotencyKey) headers['idempotency-key'] = o.idempotencyKey;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', signal: o.signal });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ProblemError(0, 'NETWORK_ERROR', String(err), {});
  }
  const type = res.headers.get('content-type') ?? '';
  const answer: unknown = type.includes('json') ? await res.json().catch(() => null) : null;
  if (!res.ok) {
    const p = (answer ?? {}) as Record<string, unknown>;
    throw new ProblemError(res.status, typeof p.code === 'string' ? p.code : `HTTP_${res.status}`, typeof p.detail === 'string' ? p.detail : res.statusText, p);
  }
  return answer as T;
}

/** A fresh Idempotency-Key for one write (a retry of the same click would reuse it). */
export const newIdempotencyKey = (): string => crypto.randomUUID();
