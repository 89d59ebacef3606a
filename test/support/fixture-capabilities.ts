// Capabilities used only by tests of the generic pipeline (strict bodies, idempotency, tiers,
// internal errors) until real write capabilities exist. They run through the real server and a
// real database: the notes endpoint writes to the events outbox, so re-execution is observable.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { CATALOG } from '../../src/api/catalog/index.ts';
import { defineCapability, type Capability } from '../../src/api/catalog/types.ts';
import { assertWalletOwner } from '../../src/api/catalog/wallet-owner.ts';
import { systemClock } from '../../src/core/clock.ts';
import { problem } from '../../src/core/error-codes.ts';
import type { DB } from '../../src/db/schema.ts';
import { appendEvent } from '../../src/services/events/outbox.ts';

export function fixtureCatalog(dbRef: { db?: Kysely<DB> }): readonly Capability[] {
  const postNote = defineCapability({
    surface: 'agent',
    method: 'POST',
    path: '/test/notes',
    category: 'test',
    summary: 'Write a note (test fixture)',
    description: 'Appends a test.note event.',
    tier: 'propose',
    scopes: ['markets:propose'],
    rateClass: 'write',
    idempotent: false,
    mcp: { tool: 'svc_test_notes' },
    input: { body: z.strictObject({ text: z.string().min(1).max(100), n: z.number().int().min(0).max(10) }) },
    output: z.object({ seq: z.string(), text: z.string() }),
    errors: ['INVALID_PAYLOAD', 'IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_REUSED', 'INSUFFICIENT_TIER'],
    handler: async (_ctx, { body }) => {
      const event = await dbRef.db!.transaction().execute((trx) => appendEvent(trx, systemClock, { type: 'test.note', payload: body }));
      return { seq: event.seq.toString(), text: body.text };
    },
  });
  // Records its note as the key's effect, then (failAfter) fails with a 409: the effect happened all the same.
  const noteOnce = defineCapability({
    surface: 'agent',
    method: 'POST',
    path: '/test/notes-once',
    category: 'test',
    summary: 'Write a note exactly once (test fixture)',
    description: 'Appends a test.note event and records it as the Idempotency-Key effect; failAfter then fails the call.',
    tier: 'propose',
    scopes: ['markets:propose'],
    rateClass: 'write',
    idempotent: false,
    mcp: { tool: 'svc_test_notes_once' },
    input: { body: z.strictObject({ text: z.string().min(1).max(100), failAfter: z.boolean() }) },
    output: z.object({ seq: z.string(), text: z.string() }),
    successStatus: 201,
    errors: ['INVALID_PAYLOAD', 'EMAIL_ALREADY_VERIFIED'],
    handler: async (ctx, { body }) => {
      const event = await dbRef.db!.transaction().execute(async (trx) => {
        const appended = await appendEvent(trx, systemClock, { type: 'test.note', payload: body });
        await ctx.recordEffect?.(trx, appended.seq.toString());
        return appended;
      });
      if (body.failAfter) throw problem('EMAIL_ALREADY_VERIFIED', 'failed after the note was written (any storable 4xx)');
      return { seq: event.seq.toString(), text: body.text };
    },
    replayEffect: async (_ctx, ref) => {
      const event = await dbRef.db!.selectFrom('events').select(['seq', 'payload']).where('seq', '=', ref).executeTakeFirstOrThrow();
      return { seq: String(event.seq), text: (event.payload as { text: string }).text };
    },
  });
  const execOnly = defineCapability({
    surface: 'agent',
    method: 'POST',
    path: '/test/exec',
    category: 'test',
    summary: 'Execute-tier probe (test fixture)',
    description: 'Needs tier execute and scope trade:execute.',
    tier: 'execute',
    scopes: ['trade:execute'],
    rateClass: 'write',
    idempotent: true,
    idempotencyExempt: 'test probe with no state',
    mcp: { tool: 'svc_test_exec' },
    output: z.object({ ok: z.literal(true) }),
    errors: ['INSUFFICIENT_TIER', 'INSUFFICIENT_SCOPE'],
    handler: async () => ({ ok: true as const }),
  });
  const ping = defineCapability({
    surface: 'agent',
    method: 'GET',
    path: '/test/ping',
    category: 'test',
    summary: 'Public read (test fixture)',
    description: 'A charged public read.',
    tier: null,
    rateClass: 'read',
    idempotent: true,
    mcp: { tool: 'svc_get_test_ping' },
    input: { query: z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) }) },
    output: z.object({ limit: z.number().int() }),
    errors: ['INVALID_QUERY'],
    handler: async (_ctx, { query }) => ({ limit: query.limit }),
  });
  const boom = defineCapability({
    surface: 'agent',
    method: 'GET',
    path: '/test/boom',
    category: 'test',
    summary: 'Internal failure (test fixture)',
    description: 'Throws an unexpected error.',
    tier: null,
    rateClass: 'uncharged',
    idempotent: true,
    mcp: { tool: 'svc_get_test_boom' },
    output: z.object({}),
    errors: ['INTERNAL_ERROR'],
    handler: async () => {
      throw new Error('secret internals: password=hunter2 at /srv/db');
    },
  });
  // An owner-gated consumer read (like the reputation event logs): only the wallet in the path may read it.
  const ownerOnly = defineCapability({
    surface: 'consumer',
    method: 'GET',
    path: '/test/owner/:wallet',
    category: 'test',
    summary: 'Owner-gated read (test fixture)',
    description: 'Answers only to a wallet session of the wallet in the path.',
    tier: null,
    walletAuth: 'required',
    rateClass: 'read',
    idempotent: true,
    input: { params: z.strictObject({ wallet: z.string().regex(/^0x[a-fA-F0-9]{40}$/) }) },
    invalidInputCode: 'INVALID_ID',
    output: z.object({ owner: z.string() }),
    errors: ['INVALID_ID', 'FORBIDDEN'],
    handler: async (ctx, { params }) => {
      assertWalletOwner(ctx, params.wallet);
      return { owner: params.wallet.toLowerCase() };
    },
  });
  return [...CATALOG, postNote, noteOnce, execOnly, ping, boom, ownerOnly];
}
