/**
 * POST /register on its four paths (spec: Registration table). Each path creates an agent and its
 * first key in one transaction, with the entitlement of core/entitlement.ts; a path that sends a
 * link queues its mail in the same transaction. Paths are closed unless the operator opens them
 * (REGISTRATION_PATHS), and each path has its own hourly budget (registration-limits.ts), charged
 * before any proof is checked so failed attempts count too. The proof's nonce (or the human check's challenge) is
 * spent in that transaction too, and under an Idempotency-Key the transaction records the registration
 * (RegistrationRef): a retry after a crash before the answer was stored gets that registration back (its key null,
 * shown once) and never makes a second agent, nor mails a second link.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { howToOpen, OPERATOR_AGENT_COMMAND } from '../../core/registration-paths.ts';
import { isUniqueViolation } from '../../db/index.ts';
import type { DB, EmailLinkPurpose, RegistrationPath } from '../../db/schema.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { KeyRecord, KeyService } from '../keys/keys.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { RateLimitStore } from '../rate-limit/store.ts';
import { findAgent, issueEntitledKey, walletTaken, type AgentRow } from './agents.ts';
import { lockOwner, ownerAgentCount, OWNER_AGENT_LIMIT, type EmailLinkService, type SentLink } from './email-links.ts';
import type { HumanCheck } from './human-check.ts';
import { chargeRegistration } from './registration-limits.ts';
import type { WalletProofInput, WalletProofVerifier } from './wallet-proof.ts';

export interface RegisteredAgent {
  agent: { id: string; name: string; walletAddress: string | null; email: string | null; registrationPath: RegistrationPath };
  key: string;
  keyRecord: KeyRecord;
  /** The link this registration mailed (email: the magic link; claim: the owner's claim link). */
  emailLink: { purpose: EmailLinkPurpose; sentTo: string; expiresAt: Date } | null;
}

export type RegisterInput =
  | ({ kind: 'wallet'; name: string } & WalletProofInput)
  | ({ kind: 'claim'; name: string; ownerEmail: string } & WalletProofInput)
  | { kind: 'email'; name: string; email: string }
  | { kind: 'anonymous'; name: string; humanCheckToken: string };

/** A registration read back from an Idempotency-Key's record: without its raw key, which is shown once. */
export type RecordedRegistration = Omit<RegisteredAgent, 'key'> & { key: null };

/** What a registration records under an Idempotency-Key: its first key (which names the agent) and the link it mailed. */
interface RegistrationRef {
  keyId: string;
  emailLinkId: string | null;
}

export interface RegistrationService {
  isOpen(path: RegistrationPath): boolean;
  /** `recordEffect` (under an Idempotency-Key) records the registration in its transaction. */
  register(input: RegisterInput, clientIp: string, recordEffect?: EffectRecorder): Promise<RegisteredAgent>;
  /** The registration `register` recorded as `ref`, as it stands now, without its key. */
  recordedRegistration(ref: string): Promise<RecordedRegistration>;
  /**
   * The agent a signed-in wallet (a SIWE session, which proved the wallet) acts as: the one bound to it, or else a new
   * one on the wallet path, without a key, made only while that path is open and charged to its budget (docs/web.md
   * "Trading with a wallet session"). `wallet` lowercase.
   */
  walletAgent(wallet: string, clientIp: string): Promise<AgentRow>;
}

export interface RegistrationDeps {
  db: Kysely<DB>;
  clock: Clock;
  keys: KeyService;
  walletProofs: WalletProofVerifier;
  humanCheck: HumanCheck;
  emailLinks: EmailLinkService;
  mailer: Mailer;
  rateLimits: RateLimitStore;
  openPaths: readonly string[];
  /** Runs in the transaction that first binds a wallet to an agent (the play-money signup grant). */
  onWalletBound?: (trx: Transaction<DB>, agentId: string, wallet: string) => Promise<void>;
}

export function createRegistrationService(deps: RegistrationDeps): RegistrationService {
  const { db, clock } = deps;

  const assertOpen = (path: RegistrationPath): void => {
    if (!deps.openPaths.includes(path)) {
      // Said to the caller too: an agent developer is often the operator of the svc it tries (a local start).
      const open = howToOpen(path, deps.openPaths);
      throw problem(
        'FEATURE_DISABLED',
        `the ${path} registration path is closed on this service; the operator opens it with ${open.variable}=${open.value} (e.g. ${open.example}) or makes an agent with \`${OPERATOR_AGENT_COMMAND}\`; GET /mcp-discovery lists every path's status`,
        { extensions: { reason: 'AGENT_REGISTRATION_CLOSED', howToOpen: open } },
      );
    }
  };

  /** Inserts the agent and its first key, with the entitlement its proofs give. */
  const createAgent = async (
    trx: Transaction<DB>,
    values: { name: string; registration_path: RegistrationPath; wallet_address?: string; email?: string; owner_email?: string },
  ): Promise<{ agent: AgentRow; key: string; keyRecord: KeyRecord }> => {
    const agent = await trx
      .insertInto('agents')
      .values({ id: randomUUID(), created_at: clock.now(), ...values })
      .returningAll()
      .executeTakeFirstOrThrow();
    const issued = (await issueEntitledKey(deps.keys, trx, agent, clock.now()))!;
    if (agent.wallet_address) await deps.onWalletBound?.(trx, agent.id, agent.wallet_address);
    return { agent, key: issued.key, keyRecord: issued.record };
  };

  const toResult = <K extends string | null>(created: { agent: AgentRow; key: K; keyRecord: KeyRecord }, emailLink: RegisteredAgent['emailLink']) => ({
    agent: {
      id: created.agent.id,
      name: created.agent.name,
      walletAddress: created.agent.wallet_address,
      email: created.agent.email,
      registrationPath: created.agent.registration_path,
    },
    key: created.key,
    keyRecord: created.keyRecord,
    emailLink,
  });

  /** Runs the transaction; a wallet that raced another registration is refused by the unique index. */
  const inTransaction = async <T>(wallet: string | null, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> => {
    try {
      const result = await db.transaction().execute(work);
      // Mail queued by the transaction goes out now that it is committed.
      deps.mailer.kick();
      return result;
    } catch (err) {
      if (wallet && isUniqueViolation(err)) throw walletTaken(wallet);
      throw err;
    }
  };

  const assertOwnerHasRoom = async (trx: Transaction<DB>, ownerEmail: string): Promise<void> => {
    if ((await ownerAgentCount(trx, ownerEmail, clock.now())) >= OWNER_AGENT_LIMIT) {
      throw problem('OWNER_AGENT_LIMIT', `${ownerEmail} already accounts for ${OWNER_AGENT_LIMIT} agents (claimed or awaiting a claim), the most one owner may claim`, {
        extensions: { limit: OWNER_AGENT_LIMIT },
      });
    }
  };

  /** The end of every path's transaction: records the registration under the caller's Idempotency-Key, then answers it. */
  const registered = async (
    trx: Transaction<DB>,
    created: { agent: AgentRow; key: string; keyRecord: KeyRecord },
    link: (SentLink & { purpose: EmailLinkPurpose; sentTo: string }) | null,
    recordEffect: EffectRecorder | undefined,
  ): Promise<RegisteredAgent> => {
    const ref: RegistrationRef = { keyId: created.keyRecord.id, emailLinkId: link?.id ?? null };
    await recordEffect?.(trx, JSON.stringify(ref));
    return toResult(created, link && { purpose: link.purpose, sentTo: link.sentTo, expiresAt: link.expiresAt });
  };

  const charge = (path: Parameters<typeof chargeRegistration>[1], subject: string) => chargeRegistration(deps, path, subject);

  return {
    isOpen: (path) => deps.openPaths.includes(path),

    async register(input, clientIp, recordEffect) {
      assertOpen(input.kind);
      switch (input.kind) {
        case 'anonymous': {
          await charge('anonymous', clientIp);
          const pass = await deps.humanCheck.verify(input.humanCheckToken, clientIp);
          return inTransaction(null, async (trx) => {
            await pass.spend(trx);
            return registered(trx, await createAgent(trx, { name: input.name, registration_path: 'anonymous' }), null, recordEffect);
          });
        }
        case 'email': {
          await charge('email', clientIp);
          await charge('email-address', input.email.toLowerCase());
          return inTransaction(null, async (trx) => {
            const created = await createAgent(trx, { name: input.name, registration_path: 'email', email: input.email });
            const link = await deps.emailLinks.send(trx, { purpose: 'verify-email', agentId: created.agent.id, agentName: input.name, email: input.email });
            return registered(trx, created, { ...link, purpose: 'verify-email', sentTo: input.email }, recordEffect);
          });
        }
        case 'wallet': {
          await charge('wallet', clientIp);
          const proof = await deps.walletProofs.checkTemplate('agent-register', input, { agentName: input.name });
          return inTransaction(proof.wallet, async (trx) => {
            await proof.consume(trx);
            return registered(trx, await createAgent(trx, { name: input.name, registration_path: 'wallet', wallet_address: proof.wallet }), null, recordEffect);
          });
        }
        case 'claim': {
          await charge('wallet', clientIp);
          const proof = await deps.walletProofs.checkTemplate('agent-register', input, { agentName: input.name });
          // Charged only once the wallet has proved itself, so nobody can spend an owner's budget with junk.
          await charge('email-address', input.ownerEmail.toLowerCase());
          return inTransaction(proof.wallet, async (trx) => {
            await proof.consume(trx);
            await lockOwner(trx, input.ownerEmail);
            await assertOwnerHasRoom(trx, input.ownerEmail);
            const created = await createAgent(trx, { name: input.name, registration_path: 'claim', wallet_address: proof.wallet, owner_email: input.ownerEmail });
            const link = await deps.emailLinks.send(trx, { purpose: 'claim', agentId: created.agent.id, agentName: input.name, email: input.ownerEmail });
            return registered(trx, created, { ...link, purpose: 'claim', sentTo: input.ownerEmail }, recordEffect);
          });
        }
      }
    },

    async walletAgent(wallet, clientIp) {
      const bound = () => db.selectFrom('agents').selectAll().where('wallet_address', '=', wallet).executeTakeFirst();
      const found = await bound();
      if (found) return found;
      assertOpen('wallet');
      await charge('wallet', clientIp);
      try {
        return await db.transaction().execute(async (trx) => {
          const agent = await trx
            .insertInto('agents')
            .values({ id: randomUUID(), created_at: clock.now(), name: `wallet-${wallet.slice(2, 10)}`, registration_path: 'wallet', wallet_address: wallet })
            .returningAll()
            .executeTakeFirstOrThrow();
          await deps.onWalletBound?.(trx, agent.id, wallet);
          return agent;
        });
      } catch (err) {
        // Two first calls of one wallet at once: the other made its agent.
        const raced = isUniqueViolation(err) ? await bound() : undefined;
        if (raced) return raced;
        throw err;
      }
    },

    async recordedRegistration(ref) {
      const { keyId, emailLinkId } = JSON.parse(ref) as RegistrationRef;
      const keyRecord = await deps.keys.get(keyId);
      const agent = keyRecord?.agentId ? await findAgent(db, keyRecord.agentId) : undefined;
      // Agents, keys and links are never deleted.
      if (!keyRecord || !agent) throw new Error(`registration ${ref}: its key or agent is missing`);
      const link = emailLinkId === null ? null : await db.selectFrom('email_links').select(['purpose', 'email', 'expires_at']).where('id', '=', emailLinkId).executeTakeFirstOrThrow();
      return toResult({ agent, key: null, keyRecord }, link && { purpose: link.purpose, sentTo: link.email, expiresAt: link.expires_at });
    },
  };
}
