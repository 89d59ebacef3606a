/**
 * The consumer web app (web/, built by Vite into web/dist): its client routes answer index.html (never cached, so a
 * new build is picked up at once), its hashed files under /assets are cached for a year, and every answer carries a
 * strict Content-Security-Policy. Nothing here reads data: the app calls the public consumer and agent APIs like any
 * other client (docs/web.md). A missing build answers 503 problem+json saying how to build it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problem } from '../../core/error-codes.ts';
import { INSTALL_ROOT } from '../../core/install-root.ts';
import type { ProblemError } from '../../core/errors.ts';
import type { VisitorService } from '../../services/visitors/visitors.ts';
import { visitorOf } from './request.ts';

/** Where `npm run build:web` writes the app. */
export const WEB_DIST_DIR = path.join(INSTALL_ROOT, 'web', 'dist');

/**
 * The app's own paths (web/src/routes.ts): each answers index.html and the app routes on the client. A path not listed
 * here keeps the JSON 404, so a typo in an API URL never turns into an HTML page.
 */
export const WEB_APP_ROUTES = ['/', '/markets', '/markets/:address', '/leaderboard', '/discover', '/profiles/:address', '/portfolio', '/buy'] as const;

/**
 * Same origin only, no inline script or style, no plug-ins, not framable. An injected EIP-1193 wallet talks to its own
 * node from the extension, so connect-src needs nothing but this server's API and event stream.
 */
export const WEB_APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': WEB_APP_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};
export const INDEX_CACHE_CONTROL = 'no-cache';
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** A file of web/public (e.g. the PM logo GET /discover/token-release names) keeps its name across builds. */
export const UNHASHED_CACHE_CONTROL = 'public, max-age=3600';
/** Vite's content hash in a file name (index-BiftRKrD.js): the name changes whenever the bytes do. */
const HASHED_NAME = /-[A-Za-z0-9_-]{8}\.[a-z0-9]+$/;

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};
/** Worth compressing: text, and not already tiny. */
const COMPRESSIBLE = new Set(['.js', '.css', '.svg', '.json', '.map', '.html']);
const ASSET_NAME = /^[A-Za-z0-9_.-]{1,200}$/;

/** A file's bytes, and its compressed forms once first asked for. */
interface Encoded {
  identity: Buffer;
  compressible: boolean;
  gzip?: Buffer;
  br?: Buffer;
}

interface Build {
  index: Encoded;
  assets: Map<string, Encoded & { type: string }>;
}

export interface WebAppDeps {
  sendProblem: (reply: FastifyReply, req: FastifyRequest, err: ProblemError) => FastifyReply;
  /** The built app (default web/dist). */
  dir?: string;
  /** Issues the visitor session a browser reads the markets with (docs/web.md "Reading without a key"). */
  visitors: Pick<VisitorService, 'principalOf' | 'cookie'>;
  /** The service is served over https: the visitor cookie is Secure. */
  secureCookies: boolean;
}

export function registerWebApp(app: FastifyInstance, deps: WebAppDeps): void {
  const dir = deps.dir ?? WEB_DIST_DIR;
  // Read once, each file compressed once when first asked for: the build is a few hundred kilobytes and never changes
  // under a running process. Until it exists, every request looks again, so `npm run build:web` next to a running
  // server is enough.
  let build: Build | null = null;
  const current = (): Build | null => (build ??= loadBuild(dir));

  const notBuilt = (req: FastifyRequest, reply: FastifyReply) =>
    deps.sendProblem(reply, req, problem('SERVICE_UNAVAILABLE', `the web app is not built (no ${path.relative(process.cwd(), dir) || dir}/index.html): run \`npm run build:web\` (npm start does it first)`));

  const index = async (req: FastifyRequest, reply: FastifyReply) => {
    const b = current();
    if (!b) return notBuilt(req, reply);
    // A browser without a valid visitor session gets one: the app's market reads need no key (docs/web.md).
    if (deps.visitors.principalOf(visitorOf(req)) === null) reply.header('Set-Cookie', deps.visitors.cookie(deps.secureCookies));
    return sendEncoded(req, reply, b.index, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': INDEX_CACHE_CONTROL });
  };
  for (const route of WEB_APP_ROUTES) app.get(route, index);

  app.get('/assets/:file', async (req, reply) => {
    const b = current();
    if (!b) return notBuilt(req, reply);
    const { file } = req.params as { file: string };
    const asset = ASSET_NAME.test(file) ? b.assets.get(file) : undefined;
    if (!asset) return reply.callNotFound();
    return sendEncoded(req, reply, asset, { 'Content-Type': asset.type, 'Cache-Control': HASHED_NAME.test(file) ? ASSET_CACHE_CONTROL : UNHASHED_CACHE_CONTROL });
  });
}

function sendEncoded(req: FastifyRequest, reply: FastifyReply, body: Encoded, headers: Record<string, string>): FastifyReply {
  reply.headers({ ...SECURITY_HEADERS, ...headers });
  if (!body.compressible) return reply.send(body.identity);
  reply.header('Vary', 'Accept-Encoding');
  const accepted = acceptedEncodings(req.headers['accept-encoding']);
  if (accepted.has('br')) {
    body.br ??= brotliCompressSync(body.identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.identity.length } });
    return reply.header('Content-Encoding', 'br').send(body.br);
  }
  if (accepted.has('gzip')) {
    body.gzip ??= gzipSync(body.identity, { level: 9 });
    return reply.header('Content-Encoding', 'gzip').send(body.gzip);
  }
  return reply.send(body.identity);
}

/** The codings a client accepts (q=0 refuses one). */
function acceptedEncodings(value: string | string[] | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  const out = new Set<string>();
  for (const part of text.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    out.add(name);
  }
  return out;
}

function loadBuild(dir: string): Build | null {
  const indexPath = path.join(dir, 'index.html');
  if (!existsSync(indexPath)) return null;
  const assets = new Map<string, Encoded & { type: string }>();
  const assetDir = path.join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      if (!ASSET_NAME.test(name)) continue;
      const ext = path.extname(name);
      assets.set(name, { ...encode(readFileSync(path.join(assetDir, name)), ext), type: CONTENT_TYPES[ext] ?? 'application/octet-stream' });
    }
  }
  return { index: encode(readFileSync(indexPath), '.html'), assets };
}

function encode(identity: Buffer, ext: string): Encoded {
  return { identity, compressible: COMPRESSIBLE.has(ext) && identity.length >= 1024 };
}
