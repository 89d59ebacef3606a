// RFC 9457 problem details: the one rendering of a ProblemError, shared by REST and MCP.
import { ERROR_CODES, titleOf } from '../../core/error-codes.ts';
import type { ProblemError } from '../../core/errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: { path: string; message: string }[];
  requestId?: string;
  [extension: string]: unknown;
}

export function problemBody(err: ProblemError, typeBase: string, requestId?: string): ProblemBody {
  return {
    ...(err.extensions ?? {}),
    type: `${typeBase}/errors/${err.code}`,
    title: titleOf(err.code),
    status: err.status,
    detail: err.detail,
    code: err.code,
    ...(err.errors ? { errors: err.errors } : {}),
    ...(requestId ? { requestId } : {}),
  };
}

export const internalErrorBody = (typeBase: string, requestId: string): ProblemBody => ({
  type: `${typeBase}/errors/INTERNAL_ERROR`,
  title: ERROR_CODES.INTERNAL_ERROR.title,
  status: 500,
  detail: `an internal error occurred; quote request id ${requestId} when reporting it`,
  code: 'INTERNAL_ERROR',
  requestId,
});
