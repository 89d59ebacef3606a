// A dialect whose driver wraps another's (write-watch.ts, pipeline.ts): everything else is the inner dialect's, and
// savepoints (nested transactions) pass straight through to the inner driver when it has them.
import type { Dialect, Driver } from 'kysely';

export function wrapDialect(dialect: Dialect, wrap: (inner: Driver) => Driver): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => {
      const inner = dialect.createDriver();
      const driver = wrap(inner);
      const extra = inner as Driver & Record<string, unknown>;
      for (const name of ['savepoint', 'rollbackToSavepoint', 'releaseSavepoint'] as const) {
        if (typeof extra[name] === 'function') (driver as unknown as Record<string, unknown>)[name] = (extra[name] as (...a: unknown[]) => unknown).bind(inner);
      }
      return driver;
    },
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
