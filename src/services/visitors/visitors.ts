/**
 * Visitors of the web app (docs/web.md "Reading without a key"): a browser that opens the app at / gets a visitor
 * session, an HttpOnly cookie `svc_visitor` = `<id>.<mac>`, an id of 16 random bytes and its HMAC-SHA256 under a key
 * derived from the operator key (so every process of a deployment verifies it, and nothing is stored). The page's
 * scripts never see it. It stands in for a read-only API key on the public market reads only (the pipeline decides
 * which: the consumer surface's and the agent surface's `/discover` reads of tier read-only), with a budget of its
 * own per visitor. A developer key, when sent, always wins.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../../core/principal.ts';

export const VISITOR_COOKIE = 'svc_visitor';
/** How long a browser keeps its visitor session (30 days). */
export const VISITOR_MAX_AGE_S = 30 * 86_400;

export interface VisitorService {
  /** A new visitor token, to send as the cookie's value. */
  issue(): string;
  /** The principal of a valid token (a read-only caller of the public market reads), or null. */
  principalOf(token: string | undefined): Principal | null;
  /** The Set-Cookie value of a new visitor session (Secure when the service is served over https). */
  cookie(secure: boolean): string;
}

const TOKEN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export function createVisitorService(deps: { secret: Buffer }): VisitorService {
  const key = createHmac('sha256', deps.secret).update('svc visitor session v1').digest();
  const macOf = (id: string) => createHmac('sha256', key).update(id).digest('base64url');
  const issue = () => {
    const id = randomBytes(16).toString('base64url');
    return `${id}.${macOf(id)}`;
  };
  return {
    issue,
    principalOf(token) {
      const m = token === undefined ? null : TOKEN.exec(token);
      if (!m) return null;
      const [, id, mac] = m as unknown as [string, string, string];
      const want = Buffer.from(macOf(id));
      const got = Buffer.from(mac);
      if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
      return { keyId: `visitor:${id}`, agentId: null, tier: 'read-only', scopes: ['markets:read'] };
    },
    cookie: (secure) => `${VISITOR_COOKIE}=${issue()}; Path=/; Max-Age=${VISITOR_MAX_AGE_S}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
  };
}
