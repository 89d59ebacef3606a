// Every write that requires an Idempotency-Key records its effect in the effect's own transaction and can rebuild its
// answer from it (docs/http.md "Exactly once across a crash"); a new write without replayEffect fails here, before a
// crash can run it twice.
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/api/catalog/index.ts';

describe('exactly-once writes', () => {
  it('every capability that requires an Idempotency-Key declares replayEffect', () => {
    const keyed = CATALOG.filter((cap) => cap.requiresIdempotencyKey);
    expect(keyed.length).toBeGreaterThanOrEqual(17);
    expect(keyed.filter((cap) => !cap.replayEffect).map((cap) => cap.name)).toEqual([]);
  });

  it('every capability that declares replayEffect requires an Idempotency-Key (the reference is kept under it)', () => {
    expect(CATALOG.filter((cap) => cap.replayEffect && !cap.requiresIdempotencyKey).map((cap) => cap.name)).toEqual([]);
  });
});
