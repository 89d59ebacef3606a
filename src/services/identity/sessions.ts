/**
 * Consumer wallet sessions: Sign-In with Ethereum (EIP-4361) verification and the sessions it opens.
 * A sign-in checks the message against this deployment (domain, URI, chain), its times against the
 * injected clock, the EIP-191 signature, and only then consumes the nonce, so a failed attempt does
 * not burn it. The session token is shown once, stored as SHA-256 and compared in constant time.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { recoverMessageAddress, type Hex } from 'viem';
import { parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { digestMatches, sha256Hex } from '../../core/secrets.ts';
import { siweDomain, siweUri } from '../../core/siwe.ts';
import { WALLET_PROOF_WINDOW_SECONDS } from '../../core/wallet-proof.ts';
import { WALLET_SESSION_COOKIE, WALLET_SESSION_HEADER, WALLET_SESSION_TOKEN_PATTERN } from '../../core/wallet-session.ts';
import type { DB } from '../../db/schema.ts';
import type { NonceService } from './nonces.ts';

/** Clock skew tolerated for an Issued At slightly ahead of ours. */
const FUTURE_SKEW_SECONDS = 30;
/** last_seen_at is refreshed at most this often, so reads do not write on every request. */
const LAST_SEEN_RESOLUTION_MS = 60_000;
/** Expired sessions are kept this long (audits), then purged. */
const KEEP_EXPIRED_MS = 7 * 86_400_000;

export type SiweRefusal =
  | 'MESSAGE_MALFORMED'
  | 'DOMAIN_MISMATCH'
  | 'URI_MISMATCH'
  | 'CHAIN_MISMATCH'
  | 'MESSAGE_EXPIRED'
  | 'MESSAGE_NOT_YET_VALID'
  | 'ISSUED_AT_OUT_OF_WINDOW'
  | 'SIGNATURE_MALFORMED'
  | 'SIGNATURE_MISMATCH'
  | 'NONCE_UNKNOWN'
  | 'NONCE_EXPIRED'
  | 'NONCE_USED';

export type SessionRefusal = 'SESSION_MISSING' | 'SESSION_UNKNOWN' | 'SESSION_EXPIRED' | 'SESSION_REVOKED';

/** The wallet session of one request, as handlers see it (HandlerContext.walletSession). */
export interface WalletSession {
  sessionId: string;
  /** Lowercase. */
  walletAddress: string;
  expiresAt: Date;
}

export interface SignInInput {
  /** The EIP-4361 message, exactly as signed. */
  message: string;
  /** EIP-191 (personal_sign) signature of `message`, 0x hex. */
  signature: string;
}

export interface SignedIn {
  /** The raw session token: returned once, never stored. */
  token: string;
  session: WalletSession;
}

export interface SessionService {
  /** Whether the session cookie carries Secure (PUBLIC_BASE_URL is https). */
  readonly secureCookies: boolean;
  /** Verifies a signed SIWE message and opens a session; throws SIWE_INVALID with a reason. */
  signIn(input: SignInInput): Promise<SignedIn>;
  /** Resolves a session token; throws WALLET_AUTH_REQUIRED with a reason when it is missing or unusable. */
  resolve(token: string | undefined): Promise<WalletSession>;
  /** Ends a session (logout); returns when it was revoked. */
  revoke(sessionId: string): Promise<Date>;
  /** Deletes sessions expired for more than a week. */
  purge(): Promise<number>;
}

export interface SessionSettings {
  publicBaseUrl: string;
  chainId: number;
  ttlHours: number;
}


const refuse = (reason: SiweRefusal, detail: string) => problem('SIWE_INVALID', detail, { extensions: { reason } });

const unauthenticated = (reason: SessionRefusal, detail: string) =>
  problem('WALLET_AUTH_REQUIRED', `${detail}; sign in with POST /api/auth/verify (Sign-In with Ethereum), then send the ${WALLET_SESSION_COOKIE} cookie or the ${WALLET_SESSION_HEADER} header`, {
    extensions: { reason },
  });

const isValidDate = (d: Date | undefined): d is Date => d instanceof Date && !Number.isNaN(d.getTime());

export function createSessionService(deps: { db: Kysely<DB>; clock: Clock; nonces: NonceService; settings: SessionSettings }): SessionService {
  const { db, clock, nonces, settings } = deps;
  const domain = siweDomain(settings.publicBaseUrl);
  const uri = siweUri(settings.publicBaseUrl);
  const scheme = new URL(settings.publicBaseUrl).protocol.replace(/:$/, '');
  const ttlMs = settings.ttlHours * 3_600_000;

  /** Checks message, times and signature, then consumes the nonce; returns the parsed facts. */
  const verify = async ({ message, signature }: SignInInput) => {
    let parsed: ReturnType<typeof parseSiweMessage>;
    try {
      parsed = parseSiweMessage(message);
    } catch {
      throw refuse('MESSAGE_MALFORMED', 'message is not an EIP-4361 message; fill the SIWE template of GET /auth-discovery');
    }
    const { address, nonce, issuedAt, expirationTime, notBefore } = parsed;
    if (!address || !parsed.domain || !parsed.uri || parsed.chainId === undefined || !nonce || !isValidDate(issuedAt)) {
      throw refuse('MESSAGE_MALFORMED', 'message is not an EIP-4361 message (address, URI, Version, Chain ID, Nonce and Issued At are required); fill the SIWE template of GET /auth-discovery');
    }
    if (parsed.version !== '1') throw refuse('MESSAGE_MALFORMED', 'Version must be 1');
    if (parsed.domain !== domain || (parsed.scheme !== undefined && parsed.scheme !== scheme)) {
      throw refuse('DOMAIN_MISMATCH', `the message must be for domain ${domain}`);
    }
    if (parsed.uri.replace(/\/+$/, '') !== uri) throw refuse('URI_MISMATCH', `URI must be ${uri}`);
    if (parsed.chainId !== settings.chainId) throw refuse('CHAIN_MISMATCH', `Chain ID must be ${settings.chainId}`);

    const now = clock.now();
    if (expirationTime !== undefined) {
      if (!isValidDate(expirationTime)) throw refuse('MESSAGE_MALFORMED', 'Expiration Time must be an RFC 3339 date-time');
      if (now.getTime() >= expirationTime.getTime()) throw refuse('MESSAGE_EXPIRED', 'the message is past its Expiration Time');
    }
    if (notBefore !== undefined) {
      if (!isValidDate(notBefore)) throw refuse('MESSAGE_MALFORMED', 'Not Before must be an RFC 3339 date-time');
      if (now.getTime() < notBefore.getTime()) throw refuse('MESSAGE_NOT_YET_VALID', 'the message is not valid before its Not Before time');
    }
    const ageSeconds = (now.getTime() - issuedAt.getTime()) / 1000;
    if (ageSeconds > WALLET_PROOF_WINDOW_SECONDS || ageSeconds < -FUTURE_SKEW_SECONDS) {
      throw refuse('ISSUED_AT_OUT_OF_WINDOW', `Issued At must be within ${WALLET_PROOF_WINDOW_SECONDS} s of the server time (GET /time)`);
    }
    // viem's own rules over the same facts (address form, domain, lifetime), as a second guard.
    if (!validateSiweMessage({ message: parsed, domain, time: now })) throw refuse('MESSAGE_MALFORMED', 'message is not a valid EIP-4361 message');

    // EOA signatures only (65 bytes, or 64 in EIP-2098 compact form); contract wallets (ERC-1271) are not verified here.
    if (!/^0x(?:[0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/.test(signature)) throw refuse('SIGNATURE_MALFORMED', 'signature must be a 65-byte EIP-191 signature, 0x hex');
    let signer: string;
    try {
      signer = (await recoverMessageAddress({ message, signature: signature as Hex })).toLowerCase();
    } catch {
      throw refuse('SIGNATURE_MALFORMED', 'signature is not a valid EIP-191 signature');
    }
    const walletAddress = address.toLowerCase();
    if (signer !== walletAddress) throw refuse('SIGNATURE_MISMATCH', 'the signature was not made by the address in the message over exactly this message');

    const refusal = await nonces.consume(nonce, 'auth', 'siwe');
    if (refusal) {
      throw refuse(
        refusal,
        refusal === 'NONCE_USED' ? 'the nonce was already used; get a fresh one from POST /api/auth/nonce' : 'the nonce is unknown or expired; get a fresh one from POST /api/auth/nonce',
      );
    }
    return { walletAddress, nonce, now, expirationTime };
  };

  return {
    secureCookies: scheme === 'https',

    async signIn(input) {
      const { walletAddress, nonce, now, expirationTime } = await verify(input);
      // A session never outlives the message that opened it.
      const expiresAt = new Date(Math.min(now.getTime() + ttlMs, expirationTime?.getTime() ?? Infinity));
      const token = `svc_ws_${randomBytes(32).toString('base64url')}`;
      const id = randomUUID();
      await db
        .insertInto('wallet_sessions')
        .values({ id, token_hash: sha256Hex(token), wallet_address: walletAddress, chain_id: settings.chainId, siwe_nonce: nonce, created_at: now, expires_at: expiresAt })
        .execute();
      return { token, session: { sessionId: id, walletAddress, expiresAt } };
    },

    async resolve(token) {
      if (token === undefined || token === '') throw unauthenticated('SESSION_MISSING', 'no wallet session was sent');
      if (!WALLET_SESSION_TOKEN_PATTERN.test(token)) throw unauthenticated('SESSION_UNKNOWN', 'the wallet session is not recognised');
      const computed = sha256Hex(token);
      const row = await db.selectFrom('wallet_sessions').selectAll().where('token_hash', '=', computed).executeTakeFirst();
      if (!row || !digestMatches(row.token_hash, computed)) throw unauthenticated('SESSION_UNKNOWN', 'the wallet session is not recognised');
      if (row.revoked_at !== null) throw unauthenticated('SESSION_REVOKED', 'the wallet session was ended (logout)');
      const now = clock.now();
      if (row.expires_at.getTime() <= now.getTime()) throw unauthenticated('SESSION_EXPIRED', 'the wallet session has expired');
      if (row.last_seen_at === null || now.getTime() - row.last_seen_at.getTime() >= LAST_SEEN_RESOLUTION_MS) {
        await db.updateTable('wallet_sessions').set({ last_seen_at: now }).where('id', '=', row.id).execute();
      }
      return { sessionId: row.id, walletAddress: row.wallet_address, expiresAt: row.expires_at };
    },

    async revoke(sessionId) {
      const now = clock.now();
      const row = await db
        .updateTable('wallet_sessions')
        .set({ revoked_at: now })
        .where('id', '=', sessionId)
        .where('revoked_at', 'is', null)
        .returning('revoked_at')
        .executeTakeFirst();
      return row?.revoked_at ?? now;
    },

    async purge() {
      const before = new Date(clock.now().getTime() - KEEP_EXPIRED_MS);
      const r = await db.deleteFrom('wallet_sessions').where('expires_at', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows ?? 0);
    },
  };
}
