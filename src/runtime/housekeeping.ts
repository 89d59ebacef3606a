/**
 * What every process does beside its requests: at start on the embedded database, the release of the Idempotency-Key
 * claims a stopped run left; then the timers: the hourly purges of expired records, the mail outbox drain, and on the
 * embedded database the upkeep autovacuum would do on PostgreSQL, where only its growth check runs (src/db/upkeep.ts;
 * docs/operations.md "Embedded database upkeep"). Answers how to stop the timers.
 */
import type { Logger } from '../core/logger.ts';
import type { Database } from '../db/index.ts';
import { GROWTH_CHECK_INTERVAL_MS, UPKEEP_INTERVAL_MS, upkeepPass } from '../db/upkeep.ts';
import { keeperLoop } from '../services/keeper-loop.ts';
import type { Services } from '../services/services.ts';

const PURGE_INTERVAL_MS = 3_600_000;
/** Mail left in the outbox by a crash or a failed delivery goes out on the next drain. */
const MAIL_DRAIN_INTERVAL_MS = 30_000;

export async function startHousekeeping(deps: {
  database: Database;
  services: Pick<Services, 'idempotency' | 'nonces' | 'linking' | 'sessions'>;
  mailer: { kick(): void };
  idempotencyTtlHours: number;
  log: Logger;
  progress: (line: string) => void;
}): Promise<() => Promise<void>> {
  const { services, log } = deps;
  // The embedded database is locked to this process, so a claim still in progress is a crashed run's: its request
  // made no effect (a committed one is kept), and the retry need not wait out the 60 s lease (docs/http.md).
  if (deps.database.kind === 'pglite') {
    const released = await services.idempotency.releaseOrphanedClaims();
    if (released > 0) deps.progress(`idempotency: released ${released} claim(s) a stopped run left in progress`);
  }
  const purge = setInterval(() => {
    services.idempotency.purgeOlderThan(deps.idempotencyTtlHours).catch((err: unknown) => log.warn({ err }, 'idempotency purge failed'));
    services.nonces.purge().catch((err: unknown) => log.warn({ err }, 'nonce purge failed'));
    services.linking.purgeExpiredLinkCodes().catch((err: unknown) => log.warn({ err }, 'link code purge failed'));
    services.sessions.purge().catch((err: unknown) => log.warn({ err }, 'wallet session purge failed'));
  }, PURGE_INTERVAL_MS);
  purge.unref();
  const mailDrain = setInterval(() => deps.mailer.kick(), MAIL_DRAIN_INTERVAL_MS);
  mailDrain.unref();
  deps.mailer.kick();
  // PGlite has no background workers, so this process does what autovacuum would: the whole pass every
  // UPKEEP_INTERVAL_MS, the growth check at the ticks in between. On PostgreSQL autovacuum keeps the tables, and only the
  // growth check runs, for the tables that grow many times over between two of its looks (a new database under load).
  const shared = deps.database.kind !== 'pglite';
  let lastFullPass = Date.now();
  const upkeep = keeperLoop({
    name: 'database upkeep',
    pass: async () => {
      const full = !shared && Date.now() - lastFullPass >= UPKEEP_INTERVAL_MS;
      const done = await upkeepPass(deps.database.background, { growthOnly: !full, shared });
      if (full) lastFullPass = Date.now();
      if (done.analyzed.length + done.vacuumed.length + done.frozen.length > 0) log.debug(done, 'database upkeep: tables analyzed, vacuumed or frozen');
    },
    log,
    intervalMs: GROWTH_CHECK_INTERVAL_MS,
  });
  upkeep.start();
  return async () => {
    clearInterval(purge);
    clearInterval(mailDrain);
    await upkeep.stop();
  };
}
