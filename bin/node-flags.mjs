// The Node.js flags the service runs with (docs/operations.md "Node.js settings"): package.json's start, svc and bench
// scripts pass them to node, since V8 reads them only as it starts (v8.setFlagsFromString is too late for the heap's
// sizes); `svc start` run any other way says which are missing (startNotice). test/cli/node-flags.test.ts checks both.
// Not on the command's first line: `#!/usr/bin/env -S node …` needs an env with -S, which BusyBox's has not.
//
// --max-semi-space-size=64: a young generation of up to 64 MB a semi-space instead of 16. Under order load the service
// allocates ~140 KB an order, so with 16 MB it collected its young generation every ~45 ms, each collection 4-10 ms of
// copying what was in flight; with 64, a quarter as often for about the same copying (docs/orderbook.md, session 27).
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=64'];

/** The service's flags that neither `execArgv` nor `nodeOptions` (the NODE_OPTIONS text) gives this process. */
export function missingServiceFlags(execArgv, nodeOptions) {
  const given = new Set([...execArgv, ...(nodeOptions ?? '').split(/\s+/).filter((f) => f !== '')]);
  return SERVICE_NODE_FLAGS.filter((flag) => !given.has(flag));
}

/**
 * The line `svc start` prints (to stderr) when this process lacks the service's flags, or null. Only for `start`: the
 * other commands are short and allocate little.
 */
export function startNotice(argv, execArgv, nodeOptions) {
  if (argv[0] !== 'start') return null;
  const missing = missingServiceFlags(execArgv, nodeOptions);
  if (missing.length === 0) return null;
  return `svc: node runs without ${missing.join(' ')} (npm start gives it): the service takes more CPU an order under load; start it as node ${missing.join(' ')} bin/svc.mjs start, or set NODE_OPTIONS=${missing.join(' ')} (docs/operations.md "Node.js settings")`;
}
