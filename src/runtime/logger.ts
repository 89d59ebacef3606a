// Structured JSON logs (pino). Every request logs its request id; secrets never reach a log line.
import { pino, type DestinationStream } from 'pino';
import type { Logger } from '../core/logger.ts';

export type { Logger } from '../core/logger.ts';

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { svc: 'svc' },
      redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.privateKey', '*.apiKey'], censor: '[redacted]' },
    },
    destination as DestinationStream | undefined,
  );
}
