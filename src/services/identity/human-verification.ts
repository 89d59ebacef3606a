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
  /**
   * For each group of wallets (one identity's), a live attestation of any of them, the oldest; or null. Asked for many
   * identities at once (a reputation fold asks for every subject it touched), so a provider can answer them in one go.
   */
  attestationsFor(identities: readonly (readonly string[])[]): Promise<(HumanAttestation | null)[]>;
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
  /** voterOf for many wallets at once (a few statements whatever their number), by lowercase wallet. */
  votersOf(wallets: readonly string[]): Promise<Map<string, Voter>>;
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
    async attestationsFor(identities) {
      const wallets = [...new Set(identities.flat())];
      if (wallets.length === 0) return identities.map(() => null);
      const rows = await db.selectFrom('human_verifications').selectAll().where('wallet_address', 'in', wallets).where('revoked_at', 'is', null).execute();
      const live = new Map(rows.map((r) => [r.wallet_address, r]));
      return identities.map((group) => {
        const oldest = group.flatMap((w) => live.get(w) ?? []).sort((a, b) => a.verified_at.getTime() - b.verified_at.getTime() || (a.wallet_address < b.wallet_address ? -1 : 1))[0];
        return oldest ? { wallet: oldest.wallet_address, verifier: oldest.verifier, reference: oldest.reference, verifiedAt: oldest.verified_at } : null;
      });
    },
  };
}

export function createHumanVerificationService(deps: { db: Kysely<DB>; clock: Clock; verifier?: HumanVerifier }): HumanVerificationService {
  const { db, clock } = deps;
  const verifier = deps.verifier ?? operatorVerifier(db);
  const votersOf = async (wallets: readonly string[]): Promise<Map<string, Voter>> => {
    const addresses = [...new Set(wallets.map(requireWallet))];
    if (addresses.length === 0) return new Map();
    const members = await db.selectFrom('identity_members').select(['wallet_address', 'identity_id']).where('wallet_address', 'in', addresses).execute();
    const identityOf = new Map(members.map((m) => [m.wallet_address, m.identity_id]));
    const ids = [...new Set(identityOf.values())];
    const linked = ids.length > 0 ? await db.selectFrom('identity_members').select(['identity_id', 'wallet_address']).where('identity_id', 'in', ids).orderBy('wallet_address').execute() : [];
    const walletsOf = new Map<string, string[]>();
    for (const m of linked) walletsOf.set(m.identity_id, [...(walletsOf.get(m.identity_id) ?? []), m.wallet_address]);
    const groups = addresses.map((a) => (identityOf.has(a) ? walletsOf.get(identityOf.get(a)!)! : [a]));
    const attestations = await verifier.attestationsFor(groups);
    return new Map(
      addresses.map((a, i) => {
        const id = identityOf.get(a);
        return [a, { wallet: a, identityKey: id !== undefined ? `identity:${id}` : `wallet:${a}`, wallets: groups[i]!, attestation: attestations[i] ?? null }];
      }),
    );
  };

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
      return (await votersOf([wallet])).get(requireWallet(wallet))!;
    },
    votersOf,
  };
}
