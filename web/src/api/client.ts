// The app's only way to the server: same-origin JSON reads of the public consumer and agent APIs. A failure becomes an
// ApiError carrying the problem `code`, which the pages turn into words (i18n "error.*").

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The problem+json `code`, or NETWORK_ERROR when no answer came. */
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | undefined | null>;

export interface Answer<T> {
  body: T;
  headers: Headers;
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export async function getJson<T>(path: string, query?: Query, signal?: AbortSignal): Promise<Answer<T>> {
  let res: Response;
  try {
    res = await fetch(withQuery(path, query), { headers: { accept: 'application/json' }, credentials: 'same-origin', signal });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK_ERROR', String(err));
  }
  const type = res.headers.get('content-type') ?? '';
  // An abort while the body is read is an abort, not an empty answer (a superseded listing read would crash its page).
  const body: unknown = type.includes('json')
    ? await res.json().catch((err: unknown) => {
        if (isAbort(err) || signal?.aborted) throw new DOMException('the read was superseded', 'AbortError');
        return null;
      })
    : null;
  if (!res.ok) {
    const p = (body ?? {}) as { code?: unknown; detail?: unknown };
    throw new ApiError(res.status, typeof p.code === 'string' ? p.code : `HTTP_${res.status}`, typeof p.detail === 'string' ? p.detail : res.statusText);
  }
  return { body: body as T, headers: res.headers };
}

export const isAbort = (err: unknown): boolean => err instanceof DOMException && err.name === 'AbortError';
