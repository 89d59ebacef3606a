/**
 * POST /register. Each path creates an agent and its first key in one transaction. Paths are
 * closed unless the operator opens them (REGISTRATION_PATHS). This release implements the wallet
 * path: an EIP-191 signature over the published agent-register template gives an active execute
 * key with the eleven wallet scopes and no expiry.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { ALL_SCOPES } from '../../core/scopes.ts';
import type { DB, RegistrationPath } from '../../db/schema.ts';
import type { KeyRecord, KeyService } from '../keys/keys.ts';
import type { WalletProofInput, WalletProofVerifier } from './wallet-proof.ts';

export interface RegisteredAgent {
  agent: { id: string; name: string; walletAddress: string | null; email: string | null; registrationPath: RegistrationPath };
  key: string;
  keyRecord: KeyRecord;
}

export interface RegistrationService {
  /** Throws FEATURE_DISABLED (reason AGENT_REGISTRATION_CLOSED) when the path is closed. */
  assertOpen(path: RegistrationPath): void;
  registerWallet(input: { name: string } & WalletProofInput): Promise<RegisteredAgent>;
}

export function createRegistrationService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  keys: KeyService;
  walletProofs: WalletProofVerifier;
  openPaths: readonly string[];
}): RegistrationService {
  const { db, clock } = deps;

  const assertOpen = (path: RegistrationPath): void => {
    if (!deps.openPaths.includes(path)) {
      throw problem('FEATURE_DISABLED', `the ${path} registration path is closed on this service; read registration.paths[].status in GET /mcp-discovery`, {
        extensions: { reason: 'AGENT_REGISTRATION_CLOSED' },
      });
    }
  };

  return {
    assertOpen,
    async registerWallet(input) {
      assertOpen('wallet');
      const wallet = await deps.walletProofs.verifyTemplate('agent-register', input);
      const taken = await db.selectFrom('agents').select('id').where('wallet_address', '=', wallet).executeTakeFirst();
      if (taken) throw walletTaken(wallet);
      try {
        return await db.transaction().execute(async (trx) => {
          const agent = await trx
            .insertInto('agents')
            .values({ id: randomUUID(), name: input.name, wallet_address: wallet, registration_path: 'wallet', created_at: clock.now() })
            .returningAll()
            .executeTakeFirstOrThrow();
          const issued = await deps.keys.create({ tier: 'execute', scopes: ALL_SCOPES, agentId: agent.id, status: 'active', expiresAt: null }, trx);
          return {
            agent: { id: agent.id, name: agent.name, walletAddress: agent.wallet_address, email: agent.email, registrationPath: agent.registration_path },
            key: issued.key,
            keyRecord: issued.record,
          };
        });
      } catch (err) {
        // Two registrations of one wallet raced: the unique index decided.
        if (/agents_wallet_address_key|unique/i.test(String((err as Error).message))) throw walletTaken(wallet);
        throw err;
      }
    },
  };
}

const walletTaken = (wallet: string) =>
  problem('WALLET_ALREADY_BOUND', `wallet ${wallet} is already bound to an agent; recover its key with POST /keys/recover`);
