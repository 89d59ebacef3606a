// A market's queue (books.ts) tells the database a batch is coming: from the moment its queue starts gathering a batch
// until the batch is taken (its transaction holds a connection) or fails, so background work waits for it
// (src/db/turns.ts). The queue's batches never touch the database here.
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DB } from '../../../db/schema.ts';
import { MarketBooks } from './books.ts';

describe('market queues', () => {
  it('expect a foreground holder from the first placement until the batch is taken, or fails before that', async () => {
    const log: string[] = [];
    let open = 0;
    const expectForeground = () => {
      open++;
      log.push('expected');
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        open--;
        log.push('ended');
      };
    };
    const books = new MarketBooks({} as Kysely<DB>, expectForeground);
    const taken = books.batched(1n, 'place', 'a', async (take) => {
      log.push(`runner (${open} open)`);
      const items = take();
      log.push(`took ${items.join('+')} (${open} open)`);
      return items.map((value) => ({ status: 'fulfilled', value }));
    });
    const joined = books.batched(1n, 'place', 'b', async () => []);
    expect(await Promise.all([taken, joined])).toEqual(['a', 'b']);
    expect(log).toEqual(['expected', 'runner (1 open)', 'ended', 'took a+b (0 open)']);

    log.length = 0;
    const failed = books.batched(2n, 'place', 'c', async () => {
      throw new Error('no connection');
    });
    await expect(failed).rejects.toThrow('no connection');
    expect(log).toEqual(['expected', 'ended']);
    expect(open).toBe(0);
  });
});
