// The structured logger every layer writes to. The runtime supplies pino; nothing below it names pino.

/** `log.info({ err, market }, 'message')` or `log.info('message')`. */
export interface LogFn {
  (bindings: object, message?: string, ...args: unknown[]): void;
  (message: string, ...args: unknown[]): void;
}

export interface Logger {
  fatal: LogFn;
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  trace: LogFn;
  /** A logger that adds these fields to every line. */
  child(bindings: Record<string, unknown>): Logger;
}
