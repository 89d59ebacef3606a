/**
 * Outgoing mail through a durable outbox: a mail is inserted in the same transaction as the change
 * that caused it (a registration, a bind-email), then delivered after commit — by SMTP when
 * SMTP_URL is set, otherwise by printing it to the log (the embedded default). A crash between
 * commit and delivery loses nothing: the periodic drain picks the row up again. A sender leases a
 * row before sending so two processes never deliver the same mail.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { createTransport, type Transporter } from 'nodemailer';
import type { Clock } from '../../core/clock.ts';
import type { DB } from '../../db/schema.ts';
import type { Logger } from '../../core/logger.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Writes the mail into the outbox inside `trx`; it is delivered once the transaction commits and `flush` runs. */
  enqueue(trx: Transaction<DB>, message: MailMessage): Promise<string>;
  /** Delivers every pending mail; resolves with how many were sent. */
  flush(): Promise<number>;
  /** Starts a flush in the background (after a commit, and periodically); a failure is logged and retried by the next one. */
  kick(): void;
  readonly transport: 'smtp' | 'log';
  /** Waits for a drain in progress, then closes the SMTP connection. */
  close(): Promise<void>;
}

const LEASE_MS = 60_000;

/**
 * Link tokens are bearer secrets kept in the outbox only until delivery: the stored copy of a sent
 * mail loses them, so the database never holds a usable link (email_links keeps only hashes).
 */
export const redactSecrets = (text: string): string => text.replace(/token=[A-Za-z0-9_-]{16,}/g, 'token=[redacted]');
const MAX_ATTEMPTS = 10;

export function createMailer(deps: { db: Kysely<DB>; clock: Clock; log: Logger; smtpUrl?: string; from: string }): Mailer {
  const { db, clock, log } = deps;
  // Bounded waits: a mail server that hangs must not hold a drain (or shutdown) for minutes.
  const smtp: Transporter | null = deps.smtpUrl
    ? createTransport({ url: deps.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 })
    : null;
  let running: Promise<number> | null = null;
  let again = false;

  /** Takes the oldest deliverable row for this sender, or nothing. */
  const lease = async () => {
    const now = clock.now();
    return db
      .updateTable('mail_outbox')
      .set((eb) => ({ lease_until: new Date(now.getTime() + LEASE_MS), attempts: eb('attempts', '+', 1) }))
      .where((eb) =>
        eb.and([
          eb(
            'id',
            '=',
            eb
              .selectFrom('mail_outbox')
              .select('id')
              .where('sent_at', 'is', null)
              .where('attempts', '<', MAX_ATTEMPTS)
              .where((w) => w.or([w('lease_until', 'is', null), w('lease_until', '<', now)]))
              .orderBy('created_at')
              .limit(1),
          ),
          // Re-checked on the row itself: of two racing senders only one matches.
          eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
          eb('sent_at', 'is', null),
        ]),
      )
      .returningAll()
      .executeTakeFirst();
  };

  const deliver = async (row: { id: string; to_address: string; subject: string; body_text: string }): Promise<void> => {
    if (smtp) {
      await smtp.sendMail({ from: deps.from, to: row.to_address, subject: row.subject, text: row.body_text });
    } else {
      // No SMTP configured: the operator reads the mail (and its link) in the log.
      log.info({ mailId: row.id, to: row.to_address, subject: row.subject }, `mail (no SMTP_URL configured):\n${row.body_text}`);
    }
  };

  const drain = async (): Promise<number> => {
    let sent = 0;
    for (let row = await lease(); row; row = await lease()) {
      try {
        await deliver(row);
        await db
          .updateTable('mail_outbox')
          .set({ sent_at: clock.now(), transport: smtp ? 'smtp' : 'log', lease_until: null, last_error: null, body_text: redactSecrets(row.body_text) })
          .where('id', '=', row.id)
          .execute();
        sent++;
      } catch (err) {
        log.warn({ err, mailId: row.id, attempt: row.attempts }, 'mail delivery failed; it stays in the outbox');
        // Keep the lease: the row is retried by a later drain once it lapses, not in this loop.
        await db.updateTable('mail_outbox').set({ last_error: String((err as Error).message).slice(0, 500) }).where('id', '=', row.id).execute();
      }
    }
    return sent;
  };

  // One drain at a time per process; a flush asked for during a drain runs once more after it.
  const flush = (): Promise<number> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let total = 0;
      do {
        again = false;
        total += await drain();
      } while (again);
      return total;
    })().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    transport: smtp ? 'smtp' : 'log',
    async enqueue(trx, message) {
      const id = randomUUID();
      await trx
        .insertInto('mail_outbox')
        .values({ id, to_address: message.to, subject: message.subject, body_text: message.text, created_at: clock.now() })
        .execute();
      return id;
    },
    flush,
    kick() {
      flush().catch((err: unknown) => log.warn({ err }, 'mail delivery round failed; the outbox keeps the mail'));
    },
    async close() {
      await running?.catch(() => undefined);
      smtp?.close();
    },
  };
}
