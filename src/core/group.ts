/**
 * Group commit for single statements: calls that arrive while the previous group's statement runs (or in the same turn
 * of the event loop) are answered by one call of `run` over all of them. Under no load a call waits for nothing but its
 * own statement; under load the groups grow by themselves, and one statement does the work of many.
 */
export interface Grouped<I, O> {
  (item: I): Promise<O>;
}

/**
 * `run` answers its items in order (one answer per item). A failure of `run` is every item's failure. At most `max` items
 * go into one call; at most one call runs at a time.
 */
export function grouped<I, O>(run: (items: I[]) => Promise<O[]>, max = 256): Grouped<I, O> {
  let waiting: { item: I; resolve: (o: O) => void; reject: (err: unknown) => void }[] = [];
  let running = false;
  let scheduled = false;

  const flush = async (): Promise<void> => {
    scheduled = false;
    if (running || waiting.length === 0) return;
    running = true;
    const group = waiting.slice(0, max);
    waiting = waiting.slice(group.length);
    try {
      const answers = await run(group.map((w) => w.item));
      if (answers.length !== group.length) throw new Error(`a group of ${group.length} got ${answers.length} answers`);
      group.forEach((w, i) => w.resolve(answers[i]!));
    } catch (err) {
      for (const w of group) w.reject(err);
    } finally {
      running = false;
      schedule();
    }
  };
  const schedule = () => {
    if (scheduled || running || waiting.length === 0) return;
    scheduled = true;
    setImmediate(() => void flush());
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      schedule();
    });
}
