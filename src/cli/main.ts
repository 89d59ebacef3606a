// `svc` command line: start, migrate, keys create|revoke, comment add, seed, market halt|unfreeze, ledger verify. Each prints one clear line on failure.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { AGENT_TIERS, type AgentTier } from '../core/tiers.ts';
import { systemClock } from '../core/clock.ts';
import { ProblemError } from '../core/errors.ts';
import { isScope, TIER_DEFAULT_SCOPES } from '../core/scopes.ts';
import { migrateToLatest, openConfiguredDatabase } from '../db/index.ts';
import { createRuntime, type Runtime } from '../runtime/runtime.ts';
import { createLogger } from '../runtime/logger.ts';
import { createKeyService } from '../services/keys/keys.ts';
import { createEventBus } from '../services/events/bus.ts';
import { createMarketLifecycle } from '../services/markets/lifecycle.ts';
import { addComment, checkComment } from '../services/markets/comments.ts';
import { verifyLedger } from '../services/ledger/verify.ts';
import { chainDefinition, createChainClient } from '../chain/clients.ts';
import type { Address } from 'viem';

const USAGE = `usage:
  svc start                      run the service (embedded PGlite + anvil unless DATABASE_URL / CHAIN_RPC_URL)
  svc migrate                    apply database migrations
  svc keys create --tier <read-only|propose|execute> [--scopes a,b] [--label text]
                                 issue an API key (printed once)
  svc keys revoke <keyId>        revoke an API key
  svc comment add --market <address> --author <address> --body <text> [--chain-id <id>]
                                 add a human comment to a market (as written through the web)
  svc seed                       create demo markets with real trades by dev accounts (embedded chain; stop svc first)
  svc market halt <address> [--reason CODE]
  svc market unfreeze <address> [--reason CODE]
                                 halt or resume trading (emits market.controlsChanged)
  svc ledger verify --contract <address> [--rpc URL] [--from-block N]
                                 replay the play-money ledger from chain data alone and check every committed root
                                 (default RPC: CHAIN_RPC_URL, else the embedded anvil on ANVIL_PORT)`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start':
      return start(loadConfig());
    case 'migrate':
      return migrate(loadConfig());
    case 'keys':
      return keys(loadConfig(), rest);
    case 'comment':
      return comment(loadConfig(), rest);
    case 'seed':
      return seed(loadConfig(), rest);
    case 'market':
      return market(loadConfig(), rest);
    case 'ledger':
      return ledger(loadConfig(), rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return command === undefined ? 1 : 0;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

async function start(config: Config): Promise<number> {
  const began = Date.now();
  const say = (line: string) => process.stdout.write(`svc: ${line}\n`);
  // Handlers go in before start-up: a signal during start-up must still stop anvil and release the
  // PGlite lock (Node's default action would exit at once and leave anvil running on its port).
  const started: { runtime?: Runtime } = {};
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      if (!started.runtime) process.exit(130); // second signal while still starting: give up (the exit hook stops anvil)
      return;
    }
    stopping = true;
    say(`${signal} received: stopping`);
    if (!started.runtime) return; // still starting: stopped below once start-up returns
    await started.runtime.close();
    say('stopped cleanly');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  const runtime = (started.runtime = await createRuntime(config, { progress: say, log: createLogger(config.logLevel) }));
  if (stopping) {
    await runtime.close();
    say('stopped cleanly');
    process.exit(0);
  }
  try {
    await runtime.listen();
  } catch (err) {
    await runtime.close(); // otherwise anvil and PGlite keep the process alive after the error
    throw err;
  }
  const base = config.publicBaseUrl;
  say(`ready in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  say(`  agent REST     ${base}/api/agent/v1   (OpenAPI ${base}/api/agent/v1/openapi.json)`);
  say(`  consumer REST  ${base}/api/v1         (OpenAPI ${base}/api/v1/openapi.json)`);
  say(`  MCP            ${config.mcpUrl}   (Streamable HTTP; discovery ${base}/api/agent/v1/mcp-discovery)`);
  say(`  health         ${base}/api/agent/v1/health`);
  say(`  chain          ${runtime.rpcUrl} (chain id ${config.chain.id}, ${runtime.anvil ? 'embedded anvil' : 'external node'})`);
  say(`  database       ${config.database.kind === 'postgres' ? 'PostgreSQL' : `PGlite ${config.database.dir}`}`);
  return new Promise<number>(() => undefined); // runs until a signal
}

async function migrate(config: Config): Promise<number> {
  const database = await openConfiguredDatabase(config.database);
  try {
    const { applied } = await migrateToLatest(database.db);
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
    return 0;
  } finally {
    await database.close();
  }
}

async function keys(config: Config, args: string[]): Promise<number> {
  // Arguments are checked before the database is opened, so a typo neither waits for nor creates one.
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parseArgs({ args: rest, options: { tier: { type: 'string' }, scopes: { type: 'string' }, label: { type: 'string' } }, strict: true });
    if (!values.tier || !(AGENT_TIERS as readonly string[]).includes(values.tier)) {
      throw new UsageError(`--tier must be one of ${AGENT_TIERS.join(', ')}`);
    }
    const tier = values.tier as AgentTier;
    const named = values.scopes === undefined ? [...TIER_DEFAULT_SCOPES[tier]] : values.scopes.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = named.filter((s) => !isScope(s));
    if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
    const scopes = named.filter(isScope);
    return withKeyService(config, async (service) => {
      const issued = await service.create({ tier, scopes, label: values.label ?? null });
      console.log(`key id:  ${issued.record.id}`);
      console.log(`tier:    ${tier}`);
      console.log(`scopes:  ${scopes.join(' ')}`);
      console.log(`api key: ${issued.key}`);
      console.log('Store the key now: it is shown once and kept only as a hash.');
      return 0;
    });
  }
  if (sub === 'revoke') {
    const keyId = rest[0];
    if (!keyId || rest.length !== 1) throw new UsageError('svc keys revoke <keyId>');
    if (!/^[0-9a-f-]{36}$/i.test(keyId)) throw new UsageError(`'${keyId}' is not a key id (a UUID)`);
    return withKeyService(config, async (service) => {
      const record = await service.revoke(keyId);
      console.log(`revoked ${record.id} (${record.prefix}…)`);
      return 0;
    });
  }
  throw new UsageError('svc keys create|revoke');
}

async function comment(config: Config, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'add') throw new UsageError('svc comment add --market <address> --author <address> --body <text>');
  const { values } = parseArgs({
    args: rest,
    options: { market: { type: 'string' }, author: { type: 'string' }, body: { type: 'string' }, 'chain-id': { type: 'string' } },
    strict: true,
  });
  if (!values.market || !values.author || values.body === undefined) throw new UsageError('svc comment add needs --market, --author and --body');
  if (values['chain-id'] !== undefined && !/^[1-9][0-9]{0,15}$/.test(values['chain-id'])) throw new UsageError('--chain-id must be a positive integer');
  const { market, author, body } = values;
  const chainId = values['chain-id'] === undefined ? config.chain.id : Number(values['chain-id']);
  checkComment({ market, author, body }); // before the database is opened, like the keys commands
  const database = await openConfiguredDatabase(config.database);
  try {
    await migrateToLatest(database.db);
    const added = await addComment(database.db, systemClock, { market, author, body, chainId });
    console.log(`comment id: ${added.id}`);
    console.log(`market:     ${added.market} (chain ${added.chainId})`);
    console.log(`author:     ${added.author}`);
    return 0;
  } finally {
    await database.close();
  }
}

async function seed(config: Config, args: string[]): Promise<number> {
  if (args.length > 0) throw new UsageError('svc seed takes no arguments');
  if (config.chain.mode !== 'embedded') throw new UsageError('svc seed funds dev accounts from the embedded anvil; it does not run against CHAIN_RPC_URL');
  const say = (line: string) => process.stdout.write(`svc: ${line}\n`);
  const runtime = await createRuntime({ ...config, markets: { ...config.markets, seedDemo: false } }, { progress: say, log: createLogger(config.logLevel) });
  try {
    const created = await runtime.seed(true);
    say(`seed: created ${created} demo markets with trades`);
    return 0;
  } finally {
    await runtime.close();
  }
}

async function market(config: Config, args: string[]): Promise<number> {
  const [sub, address, ...rest] = args;
  if ((sub !== 'halt' && sub !== 'unfreeze') || !address) throw new UsageError('svc market halt|unfreeze <address> [--reason CODE]');
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new UsageError(`'${address}' is not a market address (0x + 40 hex digits)`);
  const { values } = parseArgs({ args: rest, options: { reason: { type: 'string' } }, strict: true });
  if (values.reason !== undefined && !/^[A-Z][A-Z0-9_]{0,63}$/.test(values.reason)) throw new UsageError('--reason must be an UPPER_SNAKE code (at most 64 characters)');
  const database = await openConfiguredDatabase(config.database);
  const log = createLogger(config.logLevel);
  const events = createEventBus({ db: database.db, log });
  try {
    await migrateToLatest(database.db);
    const lifecycle = createMarketLifecycle({ db: database.db, clock: systemClock, events, log, intervalMs: config.markets.schedulerMs });
    const r = await lifecycle.setControl(config.chain.id, address, sub, values.reason ?? null);
    console.log(`market ${address.toLowerCase()}: interaction ${r.previousState} -> ${r.newState}; isTradeable ${r.isTradeable}`);
    return 0;
  } finally {
    await events.close();
    await database.close();
  }
}

async function ledger(config: Config, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'verify') throw new UsageError('svc ledger verify --contract <address> [--rpc URL] [--from-block N]');
  const { values } = parseArgs({ args: rest, options: { rpc: { type: 'string' }, contract: { type: 'string' }, 'from-block': { type: 'string' } }, strict: true });
  if (!values.contract || !/^0x[0-9a-fA-F]{40}$/.test(values.contract)) {
    throw new UsageError('--contract <address> is required: the LedgerCommitment address (GET /api/v1/ledger/proof/<any address> shows it)');
  }
  if (values['from-block'] !== undefined && !/^[0-9]+$/.test(values['from-block'])) throw new UsageError('--from-block must be a block number');
  const rpc = values.rpc ?? config.chain.rpcUrl ?? `http://127.0.0.1:${config.chain.anvilPort}`;
  const say = (line: string) => process.stdout.write(`ledger verify: ${line}\n`);
  say(`replaying ${values.contract} from block ${values['from-block'] ?? 0} via ${rpc}`);
  const report = await verifyLedger({
    client: createChainClient(chainDefinition(config.chain.id, config.chain.name, rpc), rpc),
    contract: values.contract as Address,
    fromBlock: values['from-block'] === undefined ? 0n : BigInt(values['from-block']),
    progress: say,
  });
  if (!report.ok) {
    say(`DIVERGENCE after ${report.batches} verified batches: ${report.divergence}`);
    return 1;
  }
  say(`ok: ${report.batches} batches up to block ${report.toBlock}; batchNonce ${report.nonce}, root ${report.root}, journal commitment ${report.journalCommitment} equal the contract's`);
  return 0;
}

async function withKeyService(config: Config, fn: (service: ReturnType<typeof createKeyService>) => Promise<number>): Promise<number> {
  const database = await openConfiguredDatabase(config.database);
  try {
    await migrateToLatest(database.db);
    return await fn(createKeyService({ db: database.db, clock: systemClock, environment: config.environment }));
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof ConfigError) console.error(err.message);
    // One line on failure; the full usage is `svc help`.
    else if (err instanceof UsageError) console.error(`svc: ${err.message} (usage: svc help)`);
    else if (err instanceof ProblemError) console.error(`svc: ${err.detail}`);
    else console.error(`svc: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
