// A read answers its object, or 404 NOT_FOUND when the service found none.
import { problem } from '../../../core/error-codes.ts';

export function found<T>(value: T | null, detail: string): T {
  if (value === null) throw problem('NOT_FOUND', detail);
  return value;
}
