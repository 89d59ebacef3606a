// Checks a response against the generated OpenAPI document: status declared, body valid against
// the declared schema (JSON Schema 2020-12 via ajv), content type as documented.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>; components: { schemas: Record<string, unknown> } };

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** Checkers by their documents: servers of one catalog and base URL share one, and ajv compiles their schemas once. */
const checkers = new Map<string, OpenApiChecker>();

/** The checker of these documents, made once per process (a server start would otherwise compile them again). */
export function checkerFor(docs: Doc[]): OpenApiChecker {
  const key = JSON.stringify(docs);
  let checker = checkers.get(key);
  if (!checker) checkers.set(key, (checker = new OpenApiChecker(docs)));
  return checker;
}

export class OpenApiChecker {
  private readonly ajv: Ajv2020;
  private readonly routes: { method: string; re: RegExp; path: string }[];
  /** Compiled validators by document, route, method and status: ajv compiles a schema object once, and each check would
   *  otherwise hand it a new one (the rewritten $refs), recompiling on every response. */
  private readonly validators = new Map<string, ValidateFunction>();
  constructor(private readonly docs: Doc[]) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    for (const [i, doc] of docs.entries()) this.ajv.addSchema({ $id: `doc${i}`, components: doc.components }, `doc${i}`);
    this.routes = docs.flatMap((doc) =>
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path, re: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`) })),
      ),
    );
  }

  /** Returns false when the route is not in any document (404/405 responses). */
  check(method: string, url: string, status: number, contentType: string | undefined, body: unknown): boolean {
    const path = url.split('?')[0]!;
    const route = this.routes.find((r) => r.method === method && r.re.test(path));
    if (!route) return false;
    const docIndex = this.docs.findIndex((d) => d.paths[route.path]?.[method.toLowerCase()]);
    const op = this.docs[docIndex]!.paths[route.path]![method.toLowerCase()]!;
    const response = op.responses[String(status)] ?? op.responses.default;
    expect(response, `${method} ${path} answered ${status}, which the OpenAPI document does not declare`).toBeDefined();
    const [mediaType, media] = Object.entries(response!.content ?? {})[0] ?? [];
    if (!media) return true;
    expect(contentType ?? '', `${method} ${path} ${status} content type`).toContain(mediaType);
    const cacheKey = `${docIndex} ${method} ${route.path} ${status}`;
    let validate = this.validators.get(cacheKey);
    if (!validate) {
      validate = this.ajv.compile(JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', `"doc${docIndex}#/components/`)));
      this.validators.set(cacheKey, validate);
    }
    const ok = validate(body);
    expect(ok, `${method} ${path} ${status} body does not match the OpenAPI schema: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 600)}`).toBe(true);
    return true;
  }
}
