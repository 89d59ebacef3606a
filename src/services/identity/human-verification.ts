/**
 * Verified humans: `humanIdVerified`, and who may cast a human vote (one ballot per identity, docs/identity.md
 * "Verified humans"). A verifier attests that a wallet is controlled by a verified human, and every wallet linked
 * under the same identity shares that attestation and its one vote. The embedded default verifier records what the
 * operator attests (`svc identity verify <wallet>`); a provider (a proof-of-personhood service, a KYC vendor) plugs in
 * behind HumanVerifier. Nothing verifies everyone: a wallet without an attestation is not a verified human.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import type { DB } from '../../db/schema.ts';

export interface HumanAttestation {
  /** The wallet it was attested for, lowercase (one of the identity's wallets). */
  wallet: string;
  verifier: string;
  reference: string | null;
  verifiedAt: Date;
}

/** Where attestations come from. */
export interface HumanVerifier {
  readonly name: string;
  /** A live attestation for any of these wallets (one identity's), the oldest; or null. */
  attestationFor(wallets: readonly string[]): Promise<HumanAttestation | null>;
}

/** A wallet as a voter: the identity it votes as (its linked wallets share one vote) and that identity's attestation. */
export interface Voter {
  wallet: string;
  /** `identity:<id>` for a wallet linked under an identity, else `wallet:<address>`: the unit one ballot counts for. */
  identityKey: string;
  /** Every wallet of that identity, lowercase. */
  wallets: string[];
  attestation: HumanAttestation | null;
}

export interface HumanVerificationService {
  readonly verifier: HumanVerifier;
  /** The operator attests a wallet (svc identity verify); attesting again refreshes it, and revives a revoked one. */
  attest(wallet: string, reference: string | null): Promise<HumanAttestation>;
  /** Withdraws a wallet's attestation; false when it had none. */
  revoke(wallet: string): Promise<boolean>;
  voterOf(wallet: string): Promise<Voter>;
}

const WALLET = /^0x[0-9a-f]{40}$/;

function requireWallet(wallet: string): string {
  const lower = wallet.toLowerCase();
  if (!WALLET.test(lower)) throw problem('INVALID_PAYLOAD', `'${wallet}' is not a wallet address (0x + 40 hex digits)`);
  return lower;
}

/** The embedded default: attestations the operator recorded in `human_verifications`. */
export function operatorVerifier(db: Kysely<DB>): HumanVerifier {
  return {
    name: 'operator',
    async attestationFor(wallets) {
      if (wallets.length === 0) return null;
      const row = await db
        .selectFrom('human_verifications')
        .selectAll()
        .where('wallet_address', 'in', [...wallets])
        .where('revoked_at', 'is', null)
        .orderBy('verified_at')
        .limit(1)
        .executeTakeFirst();
      return row ? { wallet: row.wallet_address, verifier: row.verifier, reference: row.reference, verifiedAt: row.verified_at } : null;
    },
  };
}

export function createHumanVerificationService(deps: { db: Kysely<DB>; clock: Clock; verifier?: HumanVerifier }): HumanVerificationService {
  const { db, clock } = deps;
  const verifier = deps.verifier ?? operatorVerifier(db);
  return {
    verifier,
    async attest(wallet, reference) {
      const address = requireWallet(wallet);
      const now = clock.now();
      const row = await db
        .insertInto('human_verifications')
        .values({ wallet_address: address, verifier: 'operator', reference, verified_at: now, revoked_at: null })
        .onConflict((oc) => oc.column('wallet_address').doUpdateSet({ verifier: 'operator', reference, verified_at: now, revoked_at: null }))
        .returningAll()
        .executeTakeFirstOrThrow();
      return { wallet: row.wallet_address, verifier: row.verifier, reference: row.reference, verifiedAt: row.verified_at };
    },
    async revoke(wallet) {
      const address = requireWallet(wallet);
      const revoked = await db
        .updateTable('human_verifications')
        .set({ revoked_at: clock.now() })
        .where('wallet_address', '=', address)
        .where('revoked_at', 'is', null)
        .returning('wallet_address')
        .executeTakeFirst();
      return revoked !== undefined;
    },
    async voterOf(wallet) {
      const address = requireWallet(wallet);
      const member = await db.selectFrom('identity_members').select('identity_id').where('wallet_address', '=', address).executeTakeFirst();
      const wallets = member
        ? (await db.selectFrom('identity_members').select('wallet_address').where('identity_id', '=', member.identity_id).orderBy('wallet_address').execute()).map((r) => r.wallet_address)
        : [address];
      return {
        wallet: address,
        identityKey: member ? `identity:${member.identity_id}` : `wallet:${address}`,
        wallets,
        attestation: await verifier.attestationFor(wallets),
      };
    },
  };
}
