// The layers of src/ and the lint rule that keeps imports pointing down them (docs/architecture.md "Layers").
// A file may import its own layer and any layer below it; type-only imports count like any other.
import path from 'node:path';

/** Lowest first. `wire` holds the wire schemas that services and the catalog share. */
export const LAYERS = [
  { name: 'core', dirs: ['core'] },
  { name: 'wire', dirs: ['wire'] },
  { name: 'db', dirs: ['db'] },
  { name: 'chain', dirs: ['chain'] },
  { name: 'services', dirs: ['services'] },
  { name: 'api', dirs: ['api'] },
  { name: 'runtime', dirs: ['runtime', 'config.ts'] },
  { name: 'cli', dirs: ['cli'] },
  { name: 'main', dirs: ['main.ts'] },
];

/**
 * The layer of a file under `srcRoot`, or null for files outside src/ (tests, benches, scripts).
 * @param {string} srcRoot absolute path of src/
 * @param {string} file absolute path
 * @returns {{ name: string, rank: number } | null}
 */
export function layerOf(srcRoot, file) {
  const rel = path.relative(srcRoot, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const first = rel.split(path.sep)[0].replace(/\.test\.ts$/, '.ts'); // a test beside a top-level file shares its layer
  const rank = LAYERS.findIndex((l) => l.dirs.includes(first));
  if (rank < 0) throw new Error(`src/${rel} is in no layer: add its folder to LAYERS in tools/lint/layers.js`);
  return { name: LAYERS[rank].name, rank };
}

/** ESLint rule `layers/no-upward-import`. Option: { srcRoot } (absolute path of src/). */
export const noUpwardImport = {
  meta: {
    type: 'problem',
    docs: { description: 'src/ imports only its own layer and the layers below it (core < wire < db < chain < services < api < runtime < cli < main)' },
    schema: [{ type: 'object', properties: { srcRoot: { type: 'string' } }, required: ['srcRoot'], additionalProperties: false }],
    messages: { upward: '{{from}} must not import {{to}} ({{spec}}): imports point down the layers (docs/architecture.md "Layers")' },
  },
  create(context) {
    const srcRoot = context.options[0].srcRoot;
    const file = context.filename;
    const from = layerOf(srcRoot, file);
    if (!from) return {};
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const to = layerOf(srcRoot, path.resolve(path.dirname(file), source.value));
      if (to && to.rank > from.rank) context.report({ node, messageId: 'upward', data: { from: from.name, to: to.name, spec: source.value } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument?.literal ?? node.argument),
    };
  },
};
