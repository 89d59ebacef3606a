// The Node.js flags the service runs with (docs/operations.md "Node.js settings"): the `svc` command's first line and
// package.json's scripts pass them to node, since V8 reads them only as it starts (v8.setFlagsFromString is too late
// for the heap's sizes). test/cli/node-flags.test.ts checks that every one of those places says the same.
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
