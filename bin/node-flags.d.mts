// Types of bin/node-flags.mjs for the TypeScript that imports it (the benches and tests).
export declare const SERVICE_NODE_FLAGS: readonly string[];
export declare function missingServiceFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[];
export declare function startNotice(argv: readonly string[], execArgv: readonly string[], nodeOptions: string | undefined): string | null;
