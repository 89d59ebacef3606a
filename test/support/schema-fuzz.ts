// Requests generated from the OpenAPI documents for the fuzz suite: values that fit each JSON Schema (2020-12, as
// zod writes it), and hostile ones (NUL, unpaired surrogates, huge strings, injections, wrong types). Seeded.

import { prng as xorshift } from '../../bench/prng.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, unknown>;

/** Uniform in [0, 1), from the benches' seeded generator: a run is reproducible from its seed. */
export function prng(seed: number): () => number {
  const next = xorshift(seed);
  return () => next() / 4_294_967_296;
}

export const HOSTILE: readonly Json[] = [
  'a\u0000b',
  'x\ud800',
  '\udc00y',
  'x'.repeat(10_000),
  "' OR 1=1 --",
  '"; DROP TABLE markets; --',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '%00',
  '${jndi:ldap://127.0.0.1/a}',
  '',
  ' ',
  '0x',
  '-1',
  '1e309',
  '9'.repeat(80),
  -1,
  0,
  2 ** 53 + 1,
  -(2 ** 63),
  1.5,
  Number.MAX_VALUE,
  true,
  null,
  [],
  {},
  [null],
  { __proto__: { polluted: true } } as unknown as Json,
];

export class Generator {
  constructor(
    private readonly random: () => number,
    private readonly components: Record<string, Schema>,
  ) {}

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  resolve(schema: Schema): Schema {
    const ref = schema.$ref;
    if (typeof ref === 'string') return this.resolve(this.components[ref.split('/').pop()!] ?? {});
    return schema;
  }

  /** A value that fits the schema as far as a generator without a regex engine can: known patterns and formats. */
  valid(raw: Schema, depth = 0): Json {
    const schema = this.resolve(raw);
    if ('const' in schema) return schema.const as Json;
    if (Array.isArray(schema.enum)) return this.pick(schema.enum as Json[]);
    const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (union) return this.valid(this.pick(union.filter((s) => this.resolve(s).type !== 'null').length > 0 ? union.filter((s) => this.resolve(s).type !== 'null') : union), depth);
    const type = Array.isArray(schema.type) ? this.pick((schema.type as string[]).filter((t) => t !== 'null')) : (schema.type as string | undefined);
    switch (type) {
      case 'object': {
        const out: { [k: string]: Json } = {};
        const required = new Set((schema.required as string[] | undefined) ?? []);
        for (const [name, prop] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {})) {
          if (depth > 4) break;
          if (required.has(name) || this.chance(0.5)) out[name] = this.valid(prop, depth + 1);
        }
        return out;
      }
      case 'array': {
        const min = (schema.minItems as number | undefined) ?? 0;
        const n = Math.min(min + Math.floor(this.random() * 3), (schema.maxItems as number | undefined) ?? 3);
        return Array.from({ length: depth > 4 ? min : n }, () => this.valid((schema.items as Schema | undefined) ?? {}, depth + 1));
      }
      case 'integer':
      case 'number': {
        const min = (schema.minimum as number | undefined) ?? (typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 0);
        const max = Math.min((schema.maximum as number | undefined) ?? min + 1000, min + 1_000_000);
        return min + Math.floor(this.random() * (max - min + 1));
      }
      case 'boolean':
        return this.chance(0.5);
      case 'string':
        return this.string(schema);
      default:
        return this.pick(['x', 1, true, null]);
    }
  }

  private string(schema: Schema): string {
    const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(this.random() * 16)]).join('');
    const pattern = String(schema.pattern ?? '');
    if (pattern.includes('{40}') || pattern.includes('{0,40}')) return `0x${hex(40)}`;
    if (pattern.includes('{64}')) return `0x${hex(64)}`;
    if (pattern.startsWith('^[0-9]+$') || pattern === '^[0-9]+$' || pattern.startsWith('^(0|[1-9]')) return String(Math.floor(this.random() * 1_000_000));
    if (schema.format === 'date-time') return new Date(Date.now() + Math.floor(this.random() * 30 * 86_400_000)).toISOString();
    if (schema.format === 'uuid') return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
    if (schema.format === 'email') return `fuzz${hex(4)}@example.com`;
    if (schema.format === 'uri') return `https://example.org/${hex(6)}`;
    const min = (schema.minLength as number | undefined) ?? 1;
    const max = Math.max(min, Math.min((schema.maxLength as number | undefined) ?? 24, 64));
    const length = min + Math.floor(this.random() * (max - min + 1));
    return Array.from({ length }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(this.random() * 36)]).join('');
  }

  /** The valid value with one place replaced by a hostile value (or the whole value, for a scalar). */
  mutated(schema: Schema): Json {
    const value = this.valid(schema);
    if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0) return this.pick(HOSTILE);
    const key = this.pick(Object.keys(value));
    return { ...value, [this.chance(0.1) ? `extra_${key}` : key]: this.pick(HOSTILE) };
  }
}
