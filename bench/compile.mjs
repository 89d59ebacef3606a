// `node --import ./bench/compile.mjs bench/<bench>.ts` (`npm run bench` does): runs a bench's TypeScript, and the
// service's sources it imports, compiled the way `svc start` runs them (bin/bundle.mjs: esbuild for node20, function
// names not kept, source maps on), not through tsx. tsx keeps names: it wraps every function it compiles in a call
// that sets the function's name, closures included, each time one is made, which cost the place-order bench about a
// tenth of an order's CPU time that a running service never spends (docs/orderbook.md, session 22). Forked load
// processes and worker threads inherit the flag.
import { register } from 'node:module';

process.setSourceMapsEnabled(true);
// bench/scope.ts's runIfMain warns when a bench runs without it.
globalThis[Symbol.for('svc.bench.compiled')] = true;
register('./compile-hooks.mjs', import.meta.url);
