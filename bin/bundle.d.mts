// Types of bin/bundle.mjs for the TypeScript that imports it (its tests).
export declare const BUNDLE_CACHE: string;
export declare function sourceFiles(root: string): string[];
export declare function sourceKey(root: string, esbuildVersion: string): string;
export declare function bundledEntry(root: string, warn: (line: string) => void): Promise<string | null>;
