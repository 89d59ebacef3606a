// Input validation shared by REST and MCP: zod issues become one problem with errors[] of {path, message}.
import type { z } from 'zod';
import type { FieldError } from '../../core/errors.ts';
import { problem, type ErrorCode } from '../../core/error-codes.ts';

export function zodFieldErrors(error: z.ZodError, location: string): FieldError[] {
  return error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
    return keys.map((extra) => {
      const parts = [location, ...issue.path.map(String), ...(extra === undefined ? [] : [extra])].filter(Boolean);
      const message = issue.code === 'unrecognized_keys' ? 'unknown field (no other fields are allowed)' : issue.message;
      return { path: parts.join('.'), message };
    });
  }).flat();
}

/** Parses `value` with `schema` or throws the capability's invalid-input problem. */
export function parseInput<S extends z.ZodType>(schema: S | undefined, value: unknown, location: string, code: ErrorCode): z.output<S> | undefined {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = zodFieldErrors(result.error, location);
  const first = errors[0];
  throw problem(code, first ? `${first.path}: ${first.message}` : `invalid ${location}`, { errors });
}
