// What the HTTP adapters (REST and MCP) read from a request: a header, the API key, the wallet session.
import type { FastifyRequest } from 'fastify';
import { problem } from '../../core/error-codes.ts';
import { CSRF_HEADER, readCookie, WALLET_SESSION_COOKIE, WALLET_SESSION_HEADER } from '../../core/wallet-session.ts';
import { VISITOR_COOKIE } from '../../services/visitors/visitors.ts';

/** The first value of a request header. */
export function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The wallet session: developerAuthHeader (Svc-Wallet-Session) wins over cookieAuth (svc_session) when both are sent. */
export function walletCredentialOf(req: FastifyRequest): string | undefined {
  const fromHeader = header(req, WALLET_SESSION_HEADER.toLowerCase())?.trim();
  return fromHeader ? fromHeader : readCookie(header(req, 'cookie'), WALLET_SESSION_COOKIE);
}

/**
 * The wallet session a keyless call of the trading loop acts as (walletSession: 'principal'). A write carried by the
 * cookie alone must send the CSRF guard (Svc-Csrf: 1), else 403 FORBIDDEN with reason CSRF_GUARD_MISSING; the
 * developer header is no ambient credential and needs none.
 */
export function actingSessionOf(req: FastifyRequest): string | undefined {
  const fromHeader = header(req, WALLET_SESSION_HEADER.toLowerCase())?.trim();
  if (fromHeader) return fromHeader;
  const cookie = readCookie(header(req, 'cookie'), WALLET_SESSION_COOKIE);
  if (cookie === undefined || req.method === 'GET' || header(req, CSRF_HEADER.toLowerCase())?.trim() === '1') return cookie;
  throw problem('FORBIDDEN', `a call that acts as the signed-in wallet through its session cookie must send the header ${CSRF_HEADER}: 1 (a cross-site page cannot)`, {
    extensions: { reason: 'CSRF_GUARD_MISSING' },
  });
}

/** The web app's visitor session cookie (docs/web.md "Reading without a key"), if any. */
export function visitorOf(req: FastifyRequest): string | undefined {
  return readCookie(header(req, 'cookie'), VISITOR_COOKIE);
}

/** Authorization: Bearer <key> is canonical; X-API-Key is the accepted alias. */
export function credentialOf(req: FastifyRequest): string | undefined {
  const auth = header(req, 'authorization');
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) throw problem('INVALID_API_KEY', 'Authorization must be "Bearer <API key>"', { headers: { 'WWW-Authenticate': 'Bearer realm="svc"' } });
    return m[1];
  }
  const alias = header(req, 'x-api-key');
  return alias === undefined || alias === '' ? undefined : alias.trim();
}
