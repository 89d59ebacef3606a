// Compile-time guarantees of the catalog, checked by `npm run typecheck` (tsc reads this file) and run by vitest:
// a tiered capability's handler gets a non-null principal, and a misspelt scope does not compile.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/api/catalog/types.ts';
import type { Principal } from '../../src/core/principal.ts';

const base = { surface: 'agent', method: 'GET', category: 'system', summary: 's', description: 'd', rateClass: 'read', idempotent: true, output: z.object({}), errors: [] } as const;

describe('capability definitions', () => {
  it('give a tiered handler a Principal and a public handler Principal | null', () => {
    const tiered = defineCapability({
      ...base,
      path: '/type-probe/tiered',
      mcp: { restOnly: 'type probe' },
      tier: 'read-only',
      scopes: ['markets:read'],
      handler: async (ctx) => {
        expectTypeOf(ctx.principal).toEqualTypeOf<Principal>();
        return {};
      },
    });
    const open = defineCapability({
      ...base,
      path: '/type-probe/open',
      mcp: { restOnly: 'type probe' },
      tier: null,
      handler: async (ctx) => {
        expectTypeOf(ctx.principal).toEqualTypeOf<Principal | null>();
        return {};
      },
    });
    expect([tiered.name, open.permission]).toEqual(['GET /type-probe/tiered', 'none']);
  });

  it('refuse a scope outside the vocabulary at compile time', () => {
    const cap = defineCapability({
      ...base,
      path: '/type-probe/scope',
      mcp: { restOnly: 'type probe' },
      tier: 'read-only',
      // @ts-expect-error -- 'market:read' is not a Scope (the vocabulary has 'markets:read')
      scopes: ['market:read'],
      handler: async () => ({}),
    });
    expect(cap.scopes).toEqual(['market:read']);
  });

  it('derive the effect from the method unless declared, and refuse a declared effect the rest contradicts', () => {
    const probe = (over: Record<string, unknown>) =>
      defineCapability({ ...base, path: '/type-probe/effect', mcp: { restOnly: 'type probe' }, tier: null, handler: async () => ({}), ...over } as never);
    expect(probe({}).effect).toBe('read');
    expect(probe({ method: 'POST', rateClass: 'write' })).toMatchObject({ effect: 'write', requiresIdempotencyKey: true });
    expect(probe({ method: 'POST', effect: 'read' })).toMatchObject({ effect: 'read', requiresIdempotencyKey: false });
    expect(() => probe({ effect: 'write' })).toThrow(/a GET changes nothing/);
    expect(() => probe({ method: 'POST' })).toThrow(/charged as a read, so it declares effect 'read'/);
    expect(() => probe({ method: 'POST', effect: 'read', rateClass: 'write' })).toThrow(/a read is charged as a read/);
    expect(() => probe({ method: 'POST', effect: 'read', idempotencyExempt: 'changes nothing' })).toThrow(/no exemption/);
    expect(() => probe({ method: 'POST', effect: 'read', destructive: true })).toThrow(/neither destroys/);
  });
});
