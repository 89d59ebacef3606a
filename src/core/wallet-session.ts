/**
 * The two wallet-auth schemes of the consumer interface: cookieAuth (the session cookie a browser
 * keeps) and developerAuthHeader (the same session token in a header, for non-browser clients).
 * Names and cookie attributes live here so the adapter, the capabilities and the OpenAPI agree.
 */

/** cookieAuth: HttpOnly, SameSite=Lax, Path=/, Max-Age; Secure when PUBLIC_BASE_URL is https. */
export const WALLET_SESSION_COOKIE = 'svc_session';
/** developerAuthHeader: `Svc-Wallet-Session: <token>`, the token POST /api/auth/verify returns. */
export const WALLET_SESSION_HEADER = 'Svc-Wallet-Session';

/**
 * The CSRF guard of a write that acts as the session's wallet through the cookie (docs/web.md "Trading with a wallet
 * session"): `Svc-Csrf: 1`. A cross-site page cannot send a custom header without a CORS preflight, which svc never
 * grants, so its forged request arrives without it.
 */
export const CSRF_HEADER = 'Svc-Csrf';

/** Session tokens: a fixed prefix (so secret scanners recognise them) and 256 random bits, base64url. */
export const WALLET_SESSION_TOKEN_PATTERN = /^svc_ws_[A-Za-z0-9_-]{43}$/;

export interface CookieOptions {
  /** Seconds until the browser drops the cookie; 0 deletes it. */
  maxAgeSeconds: number;
  secure: boolean;
}

/** The Set-Cookie value carrying `token` (which is cookie-safe: base64url). */
export function sessionCookie(token: string, o: CookieOptions): string {
  const attributes = [`${WALLET_SESSION_COOKIE}=${token}`, 'Path=/', `Max-Age=${Math.max(0, Math.floor(o.maxAgeSeconds))}`, 'HttpOnly', 'SameSite=Lax'];
  if (o.secure) attributes.push('Secure');
  return attributes.join('; ');
}

/** The Set-Cookie value that deletes the session cookie (logout). */
export const clearedSessionCookie = (secure: boolean): string => sessionCookie('', { maxAgeSeconds: 0, secure });

/** The value of cookie `name` in a Cookie request header (the first one, as browsers send the most specific first). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    const value = pair.slice(eq + 1).trim();
    return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value;
  }
  return undefined;
}
