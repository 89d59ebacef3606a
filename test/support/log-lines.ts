// A logger whose lines a test reads back: every JSON line the service writes at `level` or above, in order.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/runtime/logger.ts';

export function capturedLog(level = 'info'): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return { log: createLogger(level, sink), lines };
}
