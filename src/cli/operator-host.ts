// Where an operator command runs (docs/operator.md): inside the running service, on its database, bus and services
// (the command came over the operator channel), or directly on the database when no service runs (the command opens
// it, and takes the PGlite folder lock). The command's code is the same either way; only the host differs.
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import type { Account } from '../core/ledger/types.ts';
import type { Logger } from '../core/logger.ts';
import type { DB, Database } from '../db/index.ts';
import type { Runtime } from '../runtime/runtime.ts';
import type { EventBus } from '../services/events/bus.ts';
import type { LedgerService } from '../services/ledger/ledger.ts';

export interface OperatorHost {
  /** `service`: inside the running service (over the operator channel); `direct`: this process opened the database. */
  readonly where: 'service' | 'direct';
  /** The service's configuration (over the channel: the running service's, not the caller's environment). */
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Logger;
  /** The database, migrated to the latest version. */
  db(): Promise<Kysely<DB>>;
  /** Migrates the database; the migrations applied (by this call, or when this host opened the database). */
  migrate(): Promise<string[]>;
  /** The event bus: the service's own (its subscribers hear at once), or one on the database for this command. */
  events(): Promise<EventBus>;
  /** The play-money ledger (writes go through its lock; the batcher commits them). */
  ledger(): Promise<LedgerService>;
  /**
   * The whole service (chain, relayer, services): the running one, or one started for this command on the database
   * this host opened (anvil, deployments and the relayer's resume included: seconds, and the chain must be there).
   * `progress` receives its start-up lines when it is started here.
   */
  runtime(progress?: (line: string) => void): Promise<Runtime>;
}

/** The running service as a host: nothing is opened or closed here. */
export function serviceHost(runtime: Runtime): OperatorHost {
  return {
    where: 'service',
    config: runtime.config,
    clock: runtime.clock,
    log: runtime.log,
    db: async () => runtime.database.db,
    migrate: async () => (await (await import('../db/index.ts')).migrateToLatest(runtime.database.db)).applied,
    events: async () => runtime.services.events,
    ledger: async () => runtime.services.ledger,
    runtime: async () => runtime,
  };
}

/**
 * Runs `fn` on a host that opens what the command asks for (the database first, and only when asked) and closes it
 * all afterwards, on success or failure.
 */
export async function withDirectHost<T>(config: Config, log: Logger, clock: Clock, fn: (host: OperatorHost) => Promise<T>): Promise<T> {
  const { migrateToLatest, openConfiguredDatabase, PGLITE_COMMAND_SETTINGS } = await import('../db/index.ts');
  // What the command opened, set by the host's methods and closed at the end.
  const opened: { database?: Promise<Database>; runtime?: Promise<Runtime>; events?: EventBus } = {};
  let applied: string[] = [];
  const openDatabase = () =>
    (opened.database ??= (async () => {
      const database = await openConfiguredDatabase(config.database, PGLITE_COMMAND_SETTINGS);
      try {
        ({ applied } = await migrateToLatest(database.db));
      } catch (err) {
        await database.close();
        throw err;
      }
      return database;
    })());
  const host: OperatorHost = {
    where: 'direct',
    config,
    clock,
    log,
    db: async () => (opened.runtime ? (await opened.runtime).database.db : (await openDatabase()).db),
    async migrate() {
      if (opened.runtime) return (await migrateToLatest((await opened.runtime).database.db)).applied;
      await openDatabase();
      return applied;
    },
    async events() {
      if (opened.runtime) return (await opened.runtime).services.events;
      if (!opened.events) {
        const { createEventBus } = await import('../services/events/bus.ts');
        opened.events = createEventBus({ db: (await openDatabase()).db, log });
      }
      return opened.events;
    },
    async ledger() {
      if (opened.runtime) return (await opened.runtime).services.ledger;
      // The ledger's fee account is the operator: its key is needed to know it (generated on the first start).
      const { createLedgerService } = await import('../services/ledger/ledger.ts');
      const { loadOrCreateOperatorKey } = await import('../chain/operator-key.ts');
      const { privateKeyToAccount } = await import('viem/accounts');
      const key = config.chain.operatorPrivateKey ?? (await loadOrCreateOperatorKey(config.chain.operatorKeyFile));
      const feeAccount = privateKeyToAccount(key).address.toLowerCase() as Account;
      return createLedgerService({ db: (await openDatabase()).db, clock, feeAccount });
    },
    runtime(progress) {
      return (opened.runtime ??= (async () => {
        const { createRuntime } = await import('../runtime/runtime.ts');
        // The demo seed is svc seed's to run; the database this host opened (if any) is handed over and closed by it.
        const database = opened.database ? await opened.database : undefined;
        return createRuntime({ ...config, markets: { ...config.markets, seedDemo: false } }, { database, log, clock, progress: progress ?? (() => undefined) });
      })());
    },
  };
  try {
    return await fn(host);
  } finally {
    await opened.events?.close();
    if (opened.runtime) await (await opened.runtime.catch(() => null))?.close();
    else if (opened.database) await (await opened.database.catch(() => null))?.close();
  }
}
