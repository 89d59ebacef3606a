/**
 * Single-use links sent by mail: the magic link of the email path (verify-email), the link that
 * proves an email bound after registration (bind-email), and the owner's claim link (claim). The
 * token is a bearer secret: 32 random bytes, mailed once, stored only as its SHA-256. Every link
 * is valid 24 hours. Opening a used link again answers the same outcome (a second click is
 * harmless); an expired one answers 410 EMAIL_LINK_EXPIRED.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { digestMatches, sha256Hex } from '../../core/secrets.ts';
import type { DB, EmailLinkPurpose } from '../../db/schema.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { KeyService } from '../keys/keys.ts';
import type { Mailer } from '../mail/mailer.ts';
import { applyEntitlement, findAgent } from './agents.ts';

export const EMAIL_LINK_TTL_MS = 24 * 60 * 60 * 1000;
/** One owner email accounts for at most this many claimed agents (spec Limits). */
export const OWNER_AGENT_LIMIT = 3;
/** The URL a mailed link opens for `token` (the page of src/api/http/confirm-page.ts, built at the edge). */
export type ConfirmLink = (token: string) => string;

/**
 * Serialises everything that counts one owner's agents (registrations naming the owner, claims),
 * so the cap of three holds under concurrent requests on PostgreSQL too.
 */
export async function lockOwner(trx: Transaction<DB>, ownerEmail: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`owner:${ownerEmail.toLowerCase()}`}))`.execute(trx);
}

/** Agents an owner accounts for: claimed ones plus those whose claim link is still open. */
export async function ownerAgentCount(trx: Transaction<DB>, ownerEmail: string, now: Date): Promise<number> {
  const row = await trx
    .selectFrom('agents')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where((eb) => eb(eb.fn('lower', ['owner_email']), '=', ownerEmail.toLowerCase()))
    .where((eb) =>
      eb.or([
        eb('claimed_at', 'is not', null),
        eb.exists(
          eb
            .selectFrom('email_links')
            .select('email_links.id')
            .whereRef('email_links.agent_id', '=', 'agents.id')
            .where('email_links.purpose', '=', 'claim')
            .where('email_links.used_at', 'is', null)
            .where('email_links.expires_at', '>', now),
        ),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}


export interface LinkOutcome {
  purpose: EmailLinkPurpose;
  agentId: string;
  email: string;
  /** false when this open found the link already used (a second click). */
  firstUse: boolean;
  confirmedAt: Date;
}

/** A resend covers at most this many agents (most recent first). */
const RESEND_MAX_AGENTS = 5;

/** A link created and its mail queued. */
export interface SentLink {
  /** email_links.id */
  id: string;
  expiresAt: Date;
}

export interface EmailLinkService {
  /** Creates the link and queues its mail inside `trx`. */
  send(trx: Transaction<DB>, link: { purpose: EmailLinkPurpose; agentId: string; agentName: string; email: string }): Promise<SentLink>;
  /** Applies the link's effect once; throws EMAIL_LINK_INVALID, EMAIL_LINK_EXPIRED or OWNER_AGENT_LIMIT. */
  confirm(token: string): Promise<LinkOutcome>;
  /**
   * Mails fresh links to `email` for what still waits on it: the magic link of each unverified
   * email-path agent with that email, and the claim link of each unclaimed agent naming it as
   * owner (while the owner has room). Returns how many were sent; callers do not reveal it. `recordEffect` (under an
   * Idempotency-Key) records the resend, with that count, in the transaction that queues the mail: a retry mails nothing.
   */
  resend(email: string, recordEffect?: EffectRecorder): Promise<number>;
}

const MAIL_TEXT: Record<EmailLinkPurpose, { subject: string; body: (name: string, url: string) => string }> = {
  'verify-email': {
    subject: 'Activate your agent API key',
    body: (name, url) => `Open this link to verify this email for agent "${name}" and activate its API key:\n\n${url}\n\nThe link is valid for 24 hours and works once.`,
  },
  'bind-email': {
    subject: 'Confirm the email of your agent',
    body: (name, url) => `Open this link to bind this email to agent "${name}":\n\n${url}\n\nThe link is valid for 24 hours and works once.`,
  },
  claim: {
    subject: 'Claim your AI agent',
    body: (name, url) =>
      `An AI agent named "${name}" named you as the person accountable for it. Open this link to claim it; it then trades as itself on its own public record, labelled AI:\n\n${url}\n\nThe link is valid for 24 hours. If you do not know this agent, ignore this mail and it will never trade.`,
  },
};

export function createEmailLinkService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  mailer: Mailer;
  confirmLink: ConfirmLink;
  /** A confirmation can change the agent's keys (applyEntitlement): their cache is cleared once it settles. */
  keys: Pick<KeyService, 'changing'>;
}): EmailLinkService {
  const { db, clock } = deps;

  const applyEffect = async (trx: Transaction<DB>, link: { purpose: EmailLinkPurpose; agent_id: string; email: string }) => {
    if (link.purpose === 'verify-email') {
      await trx.updateTable('agents').set({ email_verified: true }).where('id', '=', link.agent_id).execute();
    } else if (link.purpose === 'bind-email') {
      // Two bind links may be out; the first one opened wins, the other stays unused.
      const bound = await trx
        .updateTable('agents')
        .set({ email: link.email, email_verified: true })
        .where('id', '=', link.agent_id)
        .where('email_verified', '=', false)
        .returning('id')
        .executeTakeFirst();
      if (!bound) throw problem('EMAIL_ALREADY_VERIFIED', 'this agent already has a verified email; this link can no longer bind another');
    } else {
      await lockOwner(trx, link.email);
      const claimed = await trx
        .selectFrom('agents')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where((eb) => eb(eb.fn('lower', ['owner_email']), '=', link.email.toLowerCase()))
        .where('claimed_at', 'is not', null)
        .executeTakeFirstOrThrow();
      if (Number(claimed.n) >= OWNER_AGENT_LIMIT) {
        throw problem('OWNER_AGENT_LIMIT', `${link.email} already claims ${OWNER_AGENT_LIMIT} agents, the most one owner may claim`);
      }
      await trx.updateTable('agents').set({ claimed_at: clock.now() }).where('id', '=', link.agent_id).execute();
    }
    await applyEntitlement(trx, link.agent_id, clock.now());
  };

  const send: EmailLinkService['send'] = async (trx, link) => {
    const token = randomBytes(32).toString('base64url');
    const id = randomUUID();
    const expiresAt = new Date(clock.now().getTime() + EMAIL_LINK_TTL_MS);
    await trx
      .insertInto('email_links')
      .values({ id, token_hash: sha256Hex(token), purpose: link.purpose, agent_id: link.agentId, email: link.email, created_at: clock.now(), expires_at: expiresAt })
      .execute();
    const url = deps.confirmLink(token);
    const text = MAIL_TEXT[link.purpose];
    await deps.mailer.enqueue(trx, { to: link.email, subject: text.subject, text: text.body(link.agentName, url) });
    return { id, expiresAt };
  };

  return {
    send,

    async resend(email, recordEffect) {
      const lower = email.toLowerCase();
      const sent = await db.transaction().execute(async (trx) => {
        const unverified = await trx
          .selectFrom('agents')
          .select(['id', 'name', 'email'])
          .where('registration_path', '=', 'email')
          .where('email_verified', '=', false)
          .where((eb) => eb(eb.fn('lower', ['email']), '=', lower))
          .orderBy('created_at', 'desc')
          .limit(RESEND_MAX_AGENTS)
          .execute();
        for (const agent of unverified) await send(trx, { purpose: 'verify-email', agentId: agent.id, agentName: agent.name, email: agent.email! });

        await lockOwner(trx, lower);
        const unclaimed = await trx
          .selectFrom('agents')
          .select(['id', 'name', 'owner_email'])
          .where('registration_path', '=', 'claim')
          .where('claimed_at', 'is', null)
          .where((eb) => eb(eb.fn('lower', ['owner_email']), '=', lower))
          .orderBy('created_at', 'desc')
          .limit(RESEND_MAX_AGENTS)
          .execute();
        let claims = 0;
        for (const agent of unclaimed) {
          // Each open claim link counts against the owner's three; an agent that already has one needs no other.
          const open = await trx
            .selectFrom('email_links')
            .select('id')
            .where('agent_id', '=', agent.id)
            .where('purpose', '=', 'claim')
            .where('used_at', 'is', null)
            .where('expires_at', '>', clock.now())
            .executeTakeFirst();
          if (!open && (await ownerAgentCount(trx, lower, clock.now())) >= OWNER_AGENT_LIMIT) continue;
          await send(trx, { purpose: 'claim', agentId: agent.id, agentName: agent.name, email: agent.owner_email! });
          claims++;
        }
        const count = unverified.length + claims;
        await recordEffect?.(trx, String(count));
        return count;
      });
      if (sent > 0) deps.mailer.kick();
      return sent;
    },

    async confirm(token) {
      return deps.keys.changing(() => db.transaction().execute(async (trx) => {
        const digest = sha256Hex(token);
        const link = await trx.selectFrom('email_links').selectAll().where('token_hash', '=', digest).forUpdate().executeTakeFirst();
        if (!link || !digestMatches(link.token_hash, digest)) throw problem('EMAIL_LINK_INVALID', 'this link is not recognised; request a new one');
        const base = { purpose: link.purpose, agentId: link.agent_id, email: link.email };
        if (link.used_at) return { ...base, firstUse: false, confirmedAt: link.used_at };
        if (link.expires_at.getTime() <= clock.now().getTime()) {
          throw problem('EMAIL_LINK_EXPIRED', 'this link has expired (links are valid 24 hours); request a new one');
        }
        if (!(await findAgent(trx, link.agent_id))) throw problem('EMAIL_LINK_INVALID', 'the agent of this link no longer exists');
        await applyEffect(trx, link);
        const confirmedAt = clock.now();
        await trx.updateTable('email_links').set({ used_at: confirmedAt }).where('id', '=', link.id).execute();
        return { ...base, firstUse: true, confirmedAt };
      }));
    },
  };
}
