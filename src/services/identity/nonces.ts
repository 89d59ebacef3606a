/**
 * Single-use authentication nonces (POST /api/auth/nonce). A nonce lives 300 s and is consumed by
 * the first successful verification that uses it; a replay, an unknown or an expired nonce is
 * refused. `signedNonce` is an HMAC of the nonce under a server secret, so a client (or another
 * svc process) can tell the nonce came from this service.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { WALLET_PROOF_WINDOW_SECONDS } from '../../core/wallet-proof.ts';
import type { Executor } from '../../db/index.ts';
import type { DB, NoncePurpose } from '../../db/schema.ts';

export const NONCE_TTL_SECONDS = WALLET_PROOF_WINDOW_SECONDS;
const SECRET_SETTING = 'auth.nonce_hmac_secret';

export type NonceRefusal = 'NONCE_UNKNOWN' | 'NONCE_EXPIRED' | 'NONCE_USED';

export interface IssuedNonce {
  nonce: string;
  signedNonce: string;
  expiresAt: Date;
}

export interface NonceService {
  issue(purpose: NoncePurpose): Promise<IssuedNonce>;
  /**
   * Marks the nonce used; returns why it cannot be used, or null on success. A nonce issued for another purpose is
   * NONCE_UNKNOWN: a human-check salt is not a wallet-proof nonce. Pass `trx` to spend it in the transaction of what
   * it admits: if that rolls back, the nonce is still unused (the same request may be retried).
   */
  consume(nonce: string, purpose: NoncePurpose, usedFor: string, trx?: Executor): Promise<NonceRefusal | null>;
  /** Why the nonce cannot be used now, or null; spends nothing (consume decides). */
  refusal(nonce: string, purpose: NoncePurpose): Promise<NonceRefusal | null>;
  /** Deletes nonces expired for more than a day. */
  purge(): Promise<number>;
}

export function createNonceService(deps: { db: Kysely<DB>; clock: Clock }): NonceService {
  const { db, clock } = deps;
  let secret: Buffer | undefined;

  // One secret per deployment, shared by every process through the database.
  const hmacSecret = async (): Promise<Buffer> => {
    if (secret) return secret;
    await db
      .insertInto('kv_settings')
      .values({ key: SECRET_SETTING, value: JSON.stringify(randomBytes(32).toString('hex')), updated_at: clock.now() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const row = await db.selectFrom('kv_settings').select('value').where('key', '=', SECRET_SETTING).executeTakeFirstOrThrow();
    secret = Buffer.from(row.value as string, 'hex');
    return secret;
  };

  const refusal = async (ex: Executor, nonce: string, purpose: NoncePurpose, now: Date): Promise<NonceRefusal | null> => {
    const row = await ex.selectFrom('auth_nonces').select(['consumed_at', 'expires_at']).where('nonce', '=', nonce).where('purpose', '=', purpose).executeTakeFirst();
    if (!row) return 'NONCE_UNKNOWN';
    if (row.consumed_at) return 'NONCE_USED';
    return row.expires_at.getTime() > now.getTime() ? null : 'NONCE_EXPIRED';
  };

  return {
    async issue(purpose) {
      const nonce = randomBytes(16).toString('hex');
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + NONCE_TTL_SECONDS * 1000);
      await db.insertInto('auth_nonces').values({ nonce, purpose, issued_at: now, expires_at: expiresAt }).execute();
      const signedNonce = createHmac('sha256', await hmacSecret()).update(nonce).digest('hex');
      return { nonce, signedNonce, expiresAt };
    },

    async consume(nonce, purpose, usedFor, trx = db) {
      const now = clock.now();
      const used = await trx
        .updateTable('auth_nonces')
        .set({ consumed_at: now, consumed_for: usedFor })
        .where('nonce', '=', nonce)
        .where('purpose', '=', purpose)
        .where('consumed_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('nonce')
        .executeTakeFirst();
      if (used) return null;
      // Not spendable: say why (an unused row that did not match has expired).
      return (await refusal(trx, nonce, purpose, now)) ?? 'NONCE_EXPIRED';
    },

    refusal: (nonce, purpose) => refusal(db, nonce, purpose, clock.now()),

    async purge() {
      const before = new Date(clock.now().getTime() - 86_400_000);
      const r = await db.deleteFrom('auth_nonces').where('expires_at', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows ?? 0);
    },
  };
}

/** Constant-time check that `signedNonce` is this service's HMAC of `nonce`. */
export function verifySignedNonce(secretHex: string, nonce: string, signedNonce: string): boolean {
  const expected = Buffer.from(createHmac('sha256', Buffer.from(secretHex, 'hex')).update(nonce).digest('hex'));
  const given = Buffer.from(signedNonce);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
