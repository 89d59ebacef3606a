/**
 * Post-registration upgrades (spec: "email plus wallet is a post-registration upgrade"):
 * bind-email mails a link whose opening binds the email; bind-wallet takes a wallet proof over
 * the agent-bind-wallet template and binds at once. Either clears an anonymous key's 24 h expiry;
 * a wallet unlocks the execute tier with the eleven scopes. An agent has at most one wallet and a
 * wallet belongs to at most one agent. Under an Idempotency-Key each records its effect in the transaction that makes
 * it: bind-email the link it mailed (by id), bind-wallet the agent it bound (by id).
 */
import type { Kysely, Transaction } from 'kysely';
import { problem } from '../../core/error-codes.ts';
import type { Clock } from '../../core/clock.ts';
import { isUniqueViolation } from '../../db/index.ts';
import type { KeyService } from '../keys/keys.ts';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../core/principal.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { RateLimitStore } from '../rate-limit/store.ts';
import { applyEntitlement, findAgent, requireAgent, walletTaken, type AgentRow } from './agents.ts';
import type { EmailLinkService } from './email-links.ts';
import { chargeRegistration } from './registration-limits.ts';
import type { WalletProofInput, WalletProofVerifier } from './wallet-proof.ts';

export interface EmailBinding {
  sentTo: string;
  expiresAt: Date;
}

export interface BindingService {
  bindEmail(principal: Principal, email: string, recordEffect?: EffectRecorder): Promise<EmailBinding>;
  /** The link a bind-email recorded as `ref`. */
  recordedEmailBinding(ref: string): Promise<EmailBinding>;
  /** Answers the agent with its wallet bound. */
  bindWallet(principal: Principal, proof: WalletProofInput, recordEffect?: EffectRecorder): Promise<AgentRow>;
  /** The agent a bind-wallet recorded as `ref`, as it stands now. */
  recordedWalletBinding(ref: string): Promise<AgentRow>;
}

export function createBindingService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  emailLinks: EmailLinkService;
  mailer: Mailer;
  walletProofs: WalletProofVerifier;
  rateLimits: RateLimitStore;
  /** Binding a wallet changes the agent's keys (applyEntitlement): their cache is cleared once it settles. */
  keys: Pick<KeyService, 'changing'>;
  /** Runs in the transaction that first binds a wallet to an agent (the play-money signup grant). */
  onWalletBound?: (trx: Transaction<DB>, agentId: string, wallet: string) => Promise<void>;
}): BindingService {
  const { db } = deps;

  return {
    async bindEmail(principal, email, recordEffect) {
      const agent = await requireAgent(db, principal);
      if (agent.email_verified) throw problem('EMAIL_ALREADY_VERIFIED', `this agent already has the verified email ${agent.email}`);
      await chargeRegistration(deps, 'email-address', email.toLowerCase());
      const { expiresAt } = await db.transaction().execute(async (trx) => {
        const link = await deps.emailLinks.send(trx, { purpose: 'bind-email', agentId: agent.id, agentName: agent.name, email });
        await recordEffect?.(trx, link.id);
        return link;
      });
      deps.mailer.kick();
      return { sentTo: email, expiresAt };
    },

    async recordedEmailBinding(ref) {
      const link = await db.selectFrom('email_links').select(['email', 'expires_at']).where('id', '=', ref).executeTakeFirstOrThrow();
      return { sentTo: link.email, expiresAt: link.expires_at };
    },

    async bindWallet(principal, proof, recordEffect) {
      const agent = await requireAgent(db, principal);
      if (agent.wallet_address) throw problem('AGENT_WALLET_ALREADY_SET', `this agent already has wallet ${agent.wallet_address} bound`);
      const { wallet, consume } = await deps.walletProofs.checkTemplate('agent-bind-wallet', proof, { agentId: agent.id });
      try {
        return await deps.keys.changing(() => db.transaction().execute(async (trx) => {
          await consume(trx);
          const updated = await trx
            .updateTable('agents')
            .set({ wallet_address: wallet })
            .where('id', '=', agent.id)
            .where('wallet_address', 'is', null)
            .returningAll()
            .executeTakeFirst();
          if (!updated) throw problem('AGENT_WALLET_ALREADY_SET', 'this agent had a wallet bound meanwhile');
          await applyEntitlement(trx, agent.id, deps.clock.now());
          await deps.onWalletBound?.(trx, agent.id, wallet);
          await recordEffect?.(trx, agent.id);
          return updated;
        }));
      } catch (err) {
        if (isUniqueViolation(err)) throw walletTaken(wallet);
        throw err;
      }
    },

    async recordedWalletBinding(ref) {
      const agent = await findAgent(db, ref);
      if (!agent) throw new Error(`bind-wallet ${ref}: the agent is missing (agents are never deleted)`);
      return agent;
    },
  };
}
