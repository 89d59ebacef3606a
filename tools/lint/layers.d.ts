// Types of tools/lint/layers.js for the TypeScript tests that exercise it.
import type { Rule } from 'eslint';

export declare const LAYERS: readonly { name: string; dirs: readonly string[] }[];
export declare function layerOf(srcRoot: string, file: string): { name: string; rank: number } | null;
export declare const noUpwardImport: Rule.RuleModule;
