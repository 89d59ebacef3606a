/**
 * Typed errors. Services and core throw `ProblemError`; only the HTTP and MCP edges turn them
 * into RFC 9457 problem+json or MCP `isError` results. Anything else that escapes becomes
 * INTERNAL_ERROR at the edge, with the cause in the log and never in the body.
 */
export interface FieldError {
  /** JSON pointer or dot-path of the offending field. */
  path: string;
  message: string;
}

export interface ProblemOptions {
  errors?: FieldError[];
  /** Extra members of the problem body (RFC 9457 extension members), e.g. `reason`. */
  extensions?: Record<string, unknown>;
  /** Response headers to add (e.g. Retry-After, WWW-Authenticate). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ProblemError extends Error {
  readonly code: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly extensions?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: string, status: number, detail: string, options: ProblemOptions = {}) {
    super(`${code}: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProblemError';
    this.code = code;
    this.status = status;
    this.detail = detail;
    this.errors = options.errors;
    this.extensions = options.extensions;
    this.headers = options.headers;
  }
}

export const isProblemError = (e: unknown): e is ProblemError => e instanceof ProblemError;
