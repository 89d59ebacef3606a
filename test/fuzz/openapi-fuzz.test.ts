// Schema-driven fuzzing of every operation of both OpenAPI documents, with no key, a read-only key and an execute
// agent's key: requests that fit the schemas, the same with one field made hostile (NUL, unpaired surrogates, 10 kB
// strings, injections, wrong types, unknown fields), hostile path and query values, and unknown query parameters.
// Every answer must be below 500, declared by the document for that operation, and match its schema (a problem+json
// body with a code for every error). Seeded and bounded for CI: FUZZ_SEED and FUZZ_PER_OPERATION (requests per
// operation and key) widen it locally, e.g. FUZZ_PER_OPERATION=60 npx vitest run test/fuzz.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { Generator, HOSTILE, prng, type Json } from '../support/schema-fuzz.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const PER_OPERATION = Number(process.env.FUZZ_PER_OPERATION ?? 3);

type Schema = Record<string, unknown>;
interface Parameter { name: string; in: string; required?: boolean; schema?: Schema }
interface Operation { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> } }
interface Doc { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } }

const clock = new ManualClock(new Date());
let server: TestServer;
let keys: { tier: string; key: string | undefined }[];

beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'anonymous,email,wallet,claim', TRUST_PROXY: 'true' } });
  const agent = await registerWallet(server, undefined, 'fuzz-agent');
  keys = [
    { tier: 'none', key: undefined },
    { tier: 'read-only', key: await server.key('read-only') },
    { tier: 'execute', key: agent.key },
  ];
});
afterAll(async () => server?.close());

/** Percent-encodes a value; an unpaired surrogate (which encodeURIComponent refuses) goes as its WTF-8 bytes. */
const encode = (v: Json): string =>
  Array.from(typeof v === 'string' ? v : JSON.stringify(v), (ch) => {
    const code = ch.charCodeAt(0);
    if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff) return `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    return encodeURIComponent(ch);
  }).join('');

function request(gen: Generator, path: string, op: Operation, mode: 'valid' | 'mutated' | 'hostile-url'): { url: string; body: Json | undefined } {
  const params = op.parameters ?? [];
  const hostileName = mode === 'hostile-url' ? gen.pick(params.filter((p) => p.in === 'path' || p.in === 'query').map((p) => p.name).concat(['unknownParam'])) : null;
  const valueOf = (p: Parameter): Json => (p.name === hostileName ? gen.pick(HOSTILE) : gen.valid(p.schema ?? {}));
  let url = path.replace(/\{(\w+)\}/g, (_m, name: string) => encode(valueOf(params.find((p) => p.name === name && p.in === 'path') ?? { name, in: 'path' })));
  const query = params.filter((p) => p.in === 'query' && (p.required || p.name === hostileName || gen.chance(0.4))).map((p) => `${p.name}=${encode(valueOf(p))}`);
  if (hostileName === 'unknownParam') query.push(`unknownParam=${encode(gen.pick(HOSTILE))}`);
  if (query.length > 0) url += `?${query.join('&')}`;
  const schema = op.requestBody?.content['application/json']?.schema;
  const body = schema === undefined ? undefined : mode === 'mutated' ? gen.mutated(schema) : gen.valid(schema);
  return { url, body };
}

/** Every path and query parameter and every top-level body field of `op`, one at a time, set to `value`. */
function sweep(gen: Generator, path: string, op: Operation, value: Json): { url: string; body: Json | undefined }[] {
  const params = op.parameters ?? [];
  const schema = op.requestBody?.content['application/json']?.schema;
  const base = request(gen, path, { ...op, parameters: params.map((p) => ({ ...p, required: p.in === 'path' })) }, 'valid');
  const out: { url: string; body: Json | undefined }[] = [];
  for (const p of params.filter((q) => q.in === 'path' || q.in === 'query')) {
    const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => encode(name === p.name ? value : gen.valid(params.find((q) => q.name === name)?.schema ?? {})));
    out.push({ url: p.in === 'query' ? `${url}?${p.name}=${encode(value)}` : url, body: base.body });
  }
  if (schema && base.body && typeof base.body === 'object' && !Array.isArray(base.body)) {
    const properties = Object.keys((gen.resolve(schema).properties as Record<string, unknown> | undefined) ?? {});
    for (const name of properties) out.push({ url: base.url, body: { ...base.body, [name]: value } });
  }
  return out;
}

describe('fuzzing every operation of both OpenAPI documents', () => {
  it(`answers below 500, declared and schema-valid, to ${PER_OPERATION} requests per operation and key (seed ${SEED})`, { timeout: 240_000 }, async () => {
    const gen = (doc: Doc) => new Generator(prng(SEED), doc.components.schemas);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    for (const surface of ['agent', 'consumer'] as const) {
      const doc = server.runtime.documents.openApi(surface) as unknown as Doc;
      const g = gen(doc);
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          for (const { tier, key } of keys) {
            for (let i = 0; i < PER_OPERATION; i++) {
              const mode = (['valid', 'mutated', 'hostile-url'] as const)[i % 3]!;
              const { url, body } = request(g, path, op, mode);
              const verb = method.toUpperCase();
              sent += 1;
              try {
                const res = await server.call(verb, url, {
                  key,
                  body,
                  idempotencyKey: verb === 'GET' ? undefined : randomUUID(),
                  headers: { 'x-forwarded-for': `203.0.113.${sent % 250}` },
                });
                statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
                if (res.status >= 500) failures.push(`${verb} ${url} [${tier}, ${mode}] -> ${res.status} ${res.text.slice(0, 300)}`);
                else if (res.status >= 400 && (typeof res.body !== 'object' || typeof res.body.code !== 'string')) failures.push(`${verb} ${url} [${tier}, ${mode}] -> ${res.status} without a problem code`);
              } catch (err) {
                failures.push(`${verb} ${url} [${tier}, ${mode}] body ${JSON.stringify(body)?.slice(0, 200)}: ${(err as Error).message.slice(0, 400)}`);
              }
            }
          }
          clock.advance(61_000); // a new rate-limit window for the next operation
        }
      }
    }
    // The sweep: NUL and unpaired surrogates in every parameter and body field, with the execute key (past auth).
    for (const surface of ['agent', 'consumer'] as const) {
      const doc = server.runtime.documents.openApi(surface) as unknown as Doc;
      const g = gen(doc);
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          for (const value of ['a\u0000b', 'x\ud800', '\udc00']) {
            for (const { url, body } of sweep(g, path, op, value)) {
              const verb = method.toUpperCase();
              sent += 1;
              try {
                const res = await server.call(verb, url, { key: keys[2]!.key, body, idempotencyKey: verb === 'GET' ? undefined : randomUUID() });
                statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
                if (res.status >= 500) failures.push(`${verb} ${url} [sweep] body ${JSON.stringify(body)?.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`);
              } catch (err) {
                failures.push(`${verb} ${url} [sweep] body ${JSON.stringify(body)?.slice(0, 200)}: ${(err as Error).message.slice(0, 400)}`);
              }
            }
          }
          clock.advance(61_000);
        }
      }
    }
    console.log(`fuzz (seed ${SEED}): ${sent} requests; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    expect(failures.slice(0, 25), `${failures.length} of ${sent} requests failed (seed ${SEED}; FUZZ_SEED=${SEED} reproduces)`).toEqual([]);
  });
});
