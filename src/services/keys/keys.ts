// API keys: random and prefixed, shown once at issue, stored as a SHA-256 hash and compared in
// constant time. Status dormant/active/revoked is stored; expired is derived from expires_at.
// authenticate() keeps the rows it read in a short-lived cache (docs/identity.md "Key cache"): a change made by this
// process clears it before the change is answered (`changing`), another process's change clears it at that process's
// commit (the api_keys trigger NOTIFYs KEYS_CHANNEL), and an entry is read again after KEY_CACHE_MS whatever happens.
import { randomBytes, randomUUID } from 'node:crypto';
import { digestMatches, sha256Hex } from '../../core/secrets.ts';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import type { DB } from '../../db/schema.ts';
import type { AgentTier } from '../../core/tiers.ts';
import type { Principal } from '../../core/principal.ts';
import { isScope, type Scope } from '../../core/scopes.ts';

export type KeyStatus = 'dormant' | 'active' | 'expired' | 'revoked';

export interface KeyRecord {
  id: string;
  prefix: string;
  agentId: string | null;
  label: string | null;
  tier: AgentTier;
  scopes: Scope[];
  status: KeyStatus;
  expiresAt: Date | null;
  createdAt: Date;
}

export interface IssuedKey {
  /** The raw key: returned once, never stored. */
  key: string;
  record: KeyRecord;
}

export interface CreateKeyParams {
  tier: AgentTier;
  scopes: readonly Scope[];
  agentId?: string | null;
  label?: string | null;
  status?: 'dormant' | 'active';
  expiresAt?: Date | null;
}

const PREFIX_LENGTH = 16;
/** NOTIFYed by the api_keys trigger (migration 0026) at the commit of any change to a key. */
export const KEYS_CHANNEL = 'svc_api_keys';
/** The longest a cached key row is trusted without a change signal (a lost LISTEN connection, say). */
export const KEY_CACHE_MS = 10_000;
/** Rows kept; past it the oldest goes. Only keys that exist are kept, so random keys cannot fill it. */
const KEY_CACHE_ENTRIES = 10_000;

export const hashKey = sha256Hex;

export interface KeyService {
  /** Issues a key; pass `trx` to create it inside the caller's transaction. */
  create(params: CreateKeyParams, trx?: Transaction<DB>): Promise<IssuedKey>;
  revoke(keyId: string): Promise<KeyRecord>;
  get(keyId: string): Promise<KeyRecord | undefined>;
  /** Resolves a raw key to its principal, or throws INVALID_API_KEY / API_KEY_REVOKED / API_KEY_EXPIRED / API_KEY_DORMANT. */
  authenticate(raw: string): Promise<Principal>;
  /**
   * Runs `work` that changes keys (a revocation, a rotation, an entitlement) and forgets every cached key once it has
   * settled, committed or not, so the change holds for the next request this process answers.
   */
  changing<T>(work: () => Promise<T>): Promise<T>;
  /** Forgets every cached key (another process changed one: KEYS_CHANNEL). */
  invalidate(): void;
}

type KeyRow = {
  id: string;
  prefix: string;
  agent_id: string | null;
  label: string | null;
  tier: string;
  scopes: unknown;
  status: string;
  expires_at: Date | null;
  created_at: Date;
  key_hash: string;
};

export function createKeyService(deps: { db: Kysely<DB>; clock: Clock; environment: 'live' | 'test' }): KeyService {
  const { db, clock } = deps;

  const toRecord = (row: KeyRow): KeyRecord => {
    const expired = row.expires_at !== null && row.expires_at.getTime() <= clock.now().getTime();
    const status = row.status === 'revoked' ? 'revoked' : expired ? 'expired' : (row.status as 'dormant' | 'active');
    return {
      id: row.id,
      prefix: row.prefix,
      agentId: row.agent_id,
      label: row.label,
      tier: row.tier as AgentTier,
      // Written only from the Scope union; a scope that has since left the vocabulary grants nothing.
      scopes: (row.scopes as string[]).filter(isScope),
      status,
      expiresAt: row.expires_at,
      createdAt: row.created_at,
    };
  };

  // By key hash. `generation` moves on every invalidation: a read that overlapped one does not store what it read.
  const cache = new Map<string, { row: KeyRow; until: number }>();
  let generation = 0;
  const invalidate = () => {
    generation++;
    cache.clear();
  };
  const lookup = async (hash: string): Promise<KeyRow | undefined> => {
    const now = performance.now();
    const hit = cache.get(hash);
    if (hit && hit.until > now) return hit.row;
    const started = generation;
    const row = (await db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst()) as KeyRow | undefined;
    if (row && started === generation) {
      cache.delete(hash);
      if (cache.size >= KEY_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
      cache.set(hash, { row, until: now + KEY_CACHE_MS });
    }
    return row;
  };

  const changing = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } finally {
      invalidate();
    }
  };

  const get = async (keyId: string): Promise<KeyRecord | undefined> => {
    const row = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
    return row ? toRecord(row as KeyRow) : undefined;
  };

  return {
    async create(params, trx) {
      const key = `svc_${deps.environment}_${randomBytes(24).toString('base64url')}`;
      const row = {
        id: randomUUID(),
        prefix: key.slice(0, PREFIX_LENGTH),
        key_hash: hashKey(key),
        agent_id: params.agentId ?? null,
        label: params.label ?? null,
        tier: params.tier,
        scopes: JSON.stringify([...params.scopes]),
        status: params.status ?? 'active',
        expires_at: params.expiresAt ?? null,
        created_at: clock.now(),
      };
      const inserted = await (trx ?? db).insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
      return { key, record: toRecord(inserted as KeyRow) };
    },

    async revoke(keyId) {
      const updated = await changing(() =>
        db.updateTable('api_keys').set({ status: 'revoked', revoked_at: clock.now() }).where('id', '=', keyId).returningAll().executeTakeFirst(),
      );
      if (!updated) throw problem('NOT_FOUND', `no API key with id ${keyId}`);
      return toRecord(updated as KeyRow);
    },

    get,

    async authenticate(raw) {
      const computed = hashKey(raw);
      const row = await lookup(computed);
      if (!row || !digestMatches(row.key_hash, computed)) {
        throw problem('INVALID_API_KEY', 'the API key is not recognised');
      }
      const record = toRecord(row);
      if (record.status === 'revoked') throw problem('API_KEY_REVOKED', 'this API key has been revoked; rotate or recover a key');
      if (record.status === 'expired') throw problem('API_KEY_EXPIRED', 'this API key has expired');
      if (record.status === 'dormant') {
        throw problem('API_KEY_DORMANT', 'this API key is dormant until its email is verified (follow the magic link)');
      }
      return { keyId: record.id, agentId: record.agentId, tier: record.tier, scopes: record.scopes };
    },

    changing,
    invalidate,
  };
}
