// The layers hold: src/ has no import cycle (type-only imports count) and every import points down the layers;
// the lint rule that guards new imports reports an upward one.
import path from 'node:path';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { layerOf, noUpwardImport } from '../../tools/lint/layers.js';
import { cyclesOf, importGraph, sourceFiles, SRC_ROOT } from '../support/import-graph.ts';

const rel = (f: string) => path.relative(SRC_ROOT, f);
const graph = importGraph(sourceFiles());

describe('the import graph of src/', () => {
  it('has no cycle, counting type-only imports', () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(cyclesOf(graph).map((c) => c.map(rel))).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself works)', () => {
    const a = path.join(SRC_ROOT, 'a.ts');
    const b = path.join(SRC_ROOT, 'b.ts');
    expect(cyclesOf(new Map([[a, [b]], [b, [a]]])).map((c) => c.map(rel))).toEqual([['a.ts', 'b.ts']]);
  });

  it('imports only down the layers: core < wire < db < chain < services < api < runtime < cli < main', () => {
    const upward: string[] = [];
    for (const [file, deps] of graph) {
      const from = layerOf(SRC_ROOT, file)!;
      for (const dep of deps) {
        const to = layerOf(SRC_ROOT, dep);
        if (to && to.rank > from.rank) upward.push(`${rel(file)} -> ${rel(dep)}`);
      }
    }
    expect(upward).toEqual([]);
  });
});

describe('lint rule layers/no-upward-import', () => {
  const tester = new RuleTester({ languageOptions: { parser: tseslint.parser as never } });
  const options = [{ srcRoot: SRC_ROOT }];
  const at = (p: string) => path.join(SRC_ROOT, p);
  it('refuses upward imports, type-only ones included, and accepts downward ones', () => {
    tester.run('layers/no-upward-import', noUpwardImport, {
      valid: [
        { filename: at('services/x/y.ts'), code: "import { a } from '../../core/a.ts';", options },
        { filename: at('api/x.ts'), code: "import type { S } from '../services/services.ts';", options },
        { filename: at('core/x.ts'), code: "import { z } from 'zod';", options },
        { filename: path.resolve(SRC_ROOT, '../test/x.test.ts'), code: "import { a } from '../src/api/a.ts';", options },
      ],
      invalid: [
        { filename: at('core/scopes.ts'), code: "import type { AgentTier } from '../api/catalog/types.ts';", options, errors: [{ messageId: 'upward' }] },
        { filename: at('services/x/y.ts'), code: "import { Order } from '../../api/catalog/orderbook/orders.ts';", options, errors: [{ messageId: 'upward' }] },
        { filename: at('services/x/y.ts'), code: "export { Logger } from '../../runtime/logger.ts';", options, errors: [{ messageId: 'upward' }] },
        { filename: at('chain/x.ts'), code: "const m = await import('../services/a.ts');", options, errors: [{ messageId: 'upward' }] },
      ],
    });
  });
});
