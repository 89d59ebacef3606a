// Text the database cannot store is refused at the edge: PostgreSQL's text and jsonb take neither U+0000 (NUL) nor an
// unpaired UTF-16 surrogate, so such input would otherwise fail deep in a query as a 500 (docs/http.md "Text input").
import type { FieldError } from '../../core/errors.ts';

// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MESSAGE = 'must not contain U+0000 (NUL) or an unpaired UTF-16 surrogate';
/** Deeper input than this is not walked further (schemas refuse it anyway). */
const MAX_DEPTH = 32;

/** Every string (value or object key) in `value` that PostgreSQL cannot store, as field errors under `location`. */
export function unstorableText(value: unknown, location: string): FieldError[] {
  const errors: FieldError[] = [];
  const walk = (v: unknown, path: string, depth: number): void => {
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) errors.push({ path, message: MESSAGE });
      return;
    }
    if (v === null || typeof v !== 'object' || depth >= MAX_DEPTH) return;
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${path}.${i}`, depth + 1));
      return;
    }
    for (const [key, item] of Object.entries(v)) {
      if (UNSTORABLE.test(key)) errors.push({ path: `${path}.${JSON.stringify(key).slice(1, -1)}`, message: `field names ${MESSAGE}` });
      walk(item, `${path}.${key}`, depth + 1);
    }
  };
  walk(value, location, 0);
  return errors;
}
