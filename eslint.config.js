// Lint: the recommended JS and TypeScript rules, plus a few that catch money and async bugs.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import path from 'node:path';
import { noUpwardImport } from './tools/lint/layers.js';

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'data/**', 'artifacts/**', 'coverage/**', '.tmp/**', 'web/dist/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-globals': ['error', { name: 'parseFloat', message: 'Money is bigint; parse decimals with core/money.' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Imports point down the layers (docs/architecture.md "Layers"), type-only imports included.
    files: ['src/**/*.ts'],
    plugins: { layers: { rules: { 'no-upward-import': noUpwardImport } } },
    rules: { 'layers/no-upward-import': ['error', { srcRoot: path.join(import.meta.dirname, 'src') }] },
  },
);
