/**
 * Reputation subjects (docs/reputation.md "Subjects"): reputation belongs to a person, not to one wallet. A wallet
 * linked under an identity (docs/identity.md "Identity linking") is part of that identity's subject; a wallet linked
 * to nothing is a subject of its own. The key is the same unit a human vote counts for: `identity:<uuid>` or
 * `wallet:<address>`. The subjectId published is an opaque token of the key: stable while the membership holds,
 * not meant to be parsed.
 */
import { isUuid } from '../ids.ts';

export type SubjectKey = `identity:${string}` | `wallet:${string}`;

const PREFIX = 'rs1_';
const WALLET = /^0x[0-9a-f]{40}$/;

/** The key of a wallet (lowercase) in `identityId`, or on its own when null. */
export const subjectKeyOf = (wallet: string, identityId: string | null): SubjectKey => (identityId ? `identity:${identityId}` : `wallet:${wallet.toLowerCase()}`);

/** The published id of a subject key. */
export const subjectIdOf = (key: SubjectKey): string => PREFIX + Buffer.from(key, 'utf8').toString('base64url');

/** The key behind a published id, or null when the id is not one this service issues. */
export function subjectKeyFromId(id: string): SubjectKey | null {
  if (!id.startsWith(PREFIX)) return null;
  const body = id.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return null;
  const key = Buffer.from(body, 'base64url').toString('utf8');
  if (subjectIdOf(key as SubjectKey) !== id) return null;
  const [kind, value] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
  // Keys hold identity ids as the database writes them: lowercase.
  if (kind === 'identity' && isUuid(value) && value === value.toLowerCase()) return key as SubjectKey;
  if (kind === 'wallet' && WALLET.test(value)) return key as SubjectKey;
  return null;
}

export const isIdentityKey = (key: SubjectKey): boolean => key.startsWith('identity:');
/** The identity id of an identity key, the wallet of a wallet key. */
export const subjectValueOf = (key: SubjectKey): string => key.slice(key.indexOf(':') + 1);
