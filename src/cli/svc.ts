// `svc` command line: start, migrate, keys create|revoke, comment add, seed, market halt|unfreeze, ledger verify,
// identity verify|revoke|status, resolution verify|restart|council-sign. Each prints one clear line on failure.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { ProblemError } from '../core/errors.ts';
import { isScope, TIER_DEFAULT_SCOPES } from '../core/scopes.ts';
import { AGENT_TIERS, type AgentTier } from '../core/tiers.ts';
import type { Runtime } from '../runtime/runtime.ts';
import type { KeyService } from '../services/keys/keys.ts';

/** Where a command writes its lines (the process's stdout and stderr, or a test's buffers). */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

// Each command imports what it needs when it runs: usage errors and `svc help` answer without loading the
// database, the chain client or the HTTP server.
const db = () => import('../db/index.ts');
const systemClock = async () => (await import('../core/clock.ts')).systemClock;
const logger = async (level: string) => (await import('../runtime/logger.ts')).createLogger(level);

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
  svc identity verify <wallet> [--reference text]
                                 attest that a wallet is a verified human (its linked wallets share it: one vote)
  svc identity revoke <wallet>   withdraw that attestation
  svc identity status <wallet>   the identity a wallet votes as and whether it is a verified human
  svc resolution verify <market> [--api URL] [--rpc URL] [--from-block N]
                                 recount every vote of a market from the chain's verdicts and the published ballots
                                 (default API: PUBLIC_BASE_URL); exits 1 on any mismatch
  svc resolution restart <market> --reason <text>
                                 integrity restart: replace vote round 1 with round 2 (the keeper opens it on chain)
  svc resolution council-sign <market> --outcome <n> [--rpc URL]
                                 sign the council decision with the operator key (the embedded council) and print the
                                 body to POST to /markets/<market>/resolution/council-signatures
  svc ledger verify --contract <address> [--rpc URL] [--from-block N]
                                 replay the play-money ledger from chain data alone and check every committed root
                                 (default RPC: CHAIN_RPC_URL, else the embedded anvil on ANVIL_PORT)`;

class UsageError extends Error {}

/**
 * Runs `svc <argv>` and resolves to its exit code. Failures are one line on `io.err`; the full usage is `svc help`.
 * `start` runs until a signal and is meant for the process entry (src/cli/main.ts) only.
 */
export async function svc(argv: string[], io: CliIo, env: Record<string, string | undefined> = process.env): Promise<number> {
  try {
    return await command(argv, io, env);
  } catch (err) {
    if (err instanceof ConfigError) io.err(err.message);
    else if (err instanceof UsageError) io.err(`svc: ${err.message} (usage: svc help)`);
    else if (err instanceof ProblemError) io.err(`svc: ${err.detail}`);
    else io.err(`svc: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

async function command(argv: string[], io: CliIo, env: Record<string, string | undefined>): Promise<number> {
  const [name, ...rest] = argv;
  switch (name) {
    case 'start':
      return start(loadConfig(env));
    case 'migrate':
      return migrate(loadConfig(env), io);
    case 'keys':
      return keys(loadConfig(env), rest, io);
    case 'comment':
      return comment(loadConfig(env), rest, io);
    case 'seed':
      return seed(loadConfig(env), rest, io);
    case 'market':
      return market(loadConfig(env), rest, io);
    case 'ledger':
      return ledger(loadConfig(env), rest, io);
    case 'identity':
      return identity(loadConfig(env), rest, io);
    case 'resolution':
      return resolution(loadConfig(env), rest, io);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.out(USAGE);
      return name === undefined ? 1 : 0;
    default:
      throw new UsageError(`unknown command '${name}'`);
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
  const { createRuntime } = await import('../runtime/runtime.ts');
  const runtime = (started.runtime = await createRuntime(config, { progress: say, log: await logger(config.logLevel) }));
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

async function migrate(config: Config, io: CliIo): Promise<number> {
  const { migrateToLatest, openConfiguredDatabase } = await db();
  const database = await openConfiguredDatabase(config.database);
  try {
    const { applied } = await migrateToLatest(database.db);
    io.out(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
    return 0;
  } finally {
    await database.close();
  }
}

async function keys(config: Config, args: string[], io: CliIo): Promise<number> {
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
      io.out(`key id:  ${issued.record.id}`);
      io.out(`tier:    ${tier}`);
      io.out(`scopes:  ${scopes.join(' ')}`);
      io.out(`api key: ${issued.key}`);
      io.out('Store the key now: it is shown once and kept only as a hash.');
      return 0;
    });
  }
  if (sub === 'revoke') {
    const keyId = rest[0];
    if (!keyId || rest.length !== 1) throw new UsageError('svc keys revoke <keyId>');
    if (!/^[0-9a-f-]{36}$/i.test(keyId)) throw new UsageError(`'${keyId}' is not a key id (a UUID)`);
    return withKeyService(config, async (service) => {
      const record = await service.revoke(keyId);
      io.out(`revoked ${record.id} (${record.prefix}…)`);
      return 0;
    });
  }
  throw new UsageError('svc keys create|revoke');
}

async function comment(config: Config, args: string[], io: CliIo): Promise<number> {
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
  const { addComment, checkComment } = await import('../services/markets/comments.ts');
  checkComment({ market, author, body }); // before the database is opened, like the keys commands
  const { migrateToLatest, openConfiguredDatabase } = await db();
  const database = await openConfiguredDatabase(config.database);
  try {
    await migrateToLatest(database.db);
    const added = await addComment(database.db, await systemClock(), { market, author, body, chainId });
    io.out(`comment id: ${added.id}`);
    io.out(`market:     ${added.market} (chain ${added.chainId})`);
    io.out(`author:     ${added.author}`);
    return 0;
  } finally {
    await database.close();
  }
}

async function seed(config: Config, args: string[], io: CliIo): Promise<number> {
  if (args.length > 0) throw new UsageError('svc seed takes no arguments');
  if (config.chain.mode !== 'embedded') throw new UsageError('svc seed funds dev accounts from the embedded anvil; it does not run against CHAIN_RPC_URL');
  const say = (line: string) => io.out(`svc: ${line}`);
  const { createRuntime } = await import('../runtime/runtime.ts');
  const runtime = await createRuntime({ ...config, markets: { ...config.markets, seedDemo: false } }, { progress: say, log: await logger(config.logLevel) });
  try {
    const created = await runtime.seed(true);
    say(`seed: created ${created} demo markets with trades`);
    return 0;
  } finally {
    await runtime.close();
  }
}

async function market(config: Config, args: string[], io: CliIo): Promise<number> {
  const [sub, address, ...rest] = args;
  if ((sub !== 'halt' && sub !== 'unfreeze') || !address) throw new UsageError('svc market halt|unfreeze <address> [--reason CODE]');
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new UsageError(`'${address}' is not a market address (0x + 40 hex digits)`);
  const { values } = parseArgs({ args: rest, options: { reason: { type: 'string' } }, strict: true });
  if (values.reason !== undefined && !/^[A-Z][A-Z0-9_]{0,63}$/.test(values.reason)) throw new UsageError('--reason must be an UPPER_SNAKE code (at most 64 characters)');
  const { migrateToLatest, openConfiguredDatabase } = await db();
  const { createEventBus } = await import('../services/events/bus.ts');
  const { createMarketLifecycle } = await import('../services/markets/lifecycle.ts');
  const database = await openConfiguredDatabase(config.database);
  const log = await logger(config.logLevel);
  const events = createEventBus({ db: database.db, log });
  try {
    await migrateToLatest(database.db);
    const lifecycle = createMarketLifecycle({ db: database.db, clock: await systemClock(), events, log, intervalMs: config.markets.schedulerMs });
    const r = await lifecycle.setControl(config.chain.id, address, sub, values.reason ?? null);
    io.out(`market ${address.toLowerCase()}: interaction ${r.previousState} -> ${r.newState}; isTradeable ${r.isTradeable}`);
    return 0;
  } finally {
    await events.close();
    await database.close();
  }
}

async function identity(config: Config, args: string[], io: CliIo): Promise<number> {
  const [sub, wallet, ...rest] = args;
  if (!['verify', 'revoke', 'status'].includes(sub ?? '') || !wallet) throw new UsageError('svc identity verify|revoke|status <wallet> [--reference text]');
  if (!/^0x[0-9a-fA-F]{40}$/.test(wallet)) throw new UsageError(`'${wallet}' is not a wallet address (0x + 40 hex digits)`);
  const { values } = parseArgs({ args: rest, options: { reference: { type: 'string' } }, strict: true });
  if (values.reference !== undefined && (sub !== 'verify' || values.reference.length === 0 || values.reference.length > 200)) {
    throw new UsageError('--reference (1..200 characters) goes with svc identity verify');
  }
  const { migrateToLatest, openConfiguredDatabase } = await db();
  const { createHumanVerificationService } = await import('../services/identity/human-verification.ts');
  const database = await openConfiguredDatabase(config.database);
  try {
    await migrateToLatest(database.db);
    const humans = createHumanVerificationService({ db: database.db, clock: await systemClock() });
    if (sub === 'verify') {
      const a = await humans.attest(wallet, values.reference ?? null);
      io.out(`wallet ${a.wallet}: verified human (verifier ${a.verifier}, at ${a.verifiedAt.toISOString()})`);
    } else if (sub === 'revoke') {
      io.out((await humans.revoke(wallet)) ? `wallet ${wallet.toLowerCase()}: attestation revoked` : `wallet ${wallet.toLowerCase()}: had no attestation`);
    }
    const voter = await humans.voterOf(wallet);
    io.out(`votes as ${voter.identityKey} (${voter.wallets.length} wallet${voter.wallets.length === 1 ? '' : 's'})`);
    io.out(voter.attestation ? `verified human: yes (attested for ${voter.attestation.wallet} by ${voter.attestation.verifier})` : 'verified human: no');
    return 0;
  } finally {
    await database.close();
  }
}

async function resolution(config: Config, args: string[], io: CliIo): Promise<number> {
  const [sub, market, ...rest] = args;
  const usage = 'svc resolution verify|restart|council-sign <market> …';
  if (!['verify', 'restart', 'council-sign'].includes(sub ?? '') || !market) throw new UsageError(usage);
  if (!/^0x[0-9a-fA-F]{40}$/.test(market)) throw new UsageError(`'${market}' is not a market address (0x + 40 hex digits)`);
  if (sub === 'restart') return resolutionRestart(config, market, rest, io);
  if (sub === 'council-sign') return councilSign(config, market, rest, io);
  const { values } = parseArgs({ args: rest, options: { api: { type: 'string' }, rpc: { type: 'string' }, 'from-block': { type: 'string' } }, strict: true });
  if (values['from-block'] !== undefined && !/^[0-9]+$/.test(values['from-block'])) throw new UsageError('--from-block must be a block number');
  const api = (values.api ?? config.publicBaseUrl).replace(/\/+$/, '');
  const rpc = values.rpc ?? config.chain.rpcUrl ?? `http://127.0.0.1:${config.chain.anvilPort}`;
  const { recountVotes } = await import('../services/resolution/recount.ts');
  const { chainDefinition, createChainClient } = await import('../chain/clients.ts');
  const fetchSession = async (sessionId: string) => {
    const res = await fetch(`${api}/api/agent/v1/resolution/votes/${sessionId}`);
    if (!res.ok) throw new Error(`GET ${api}/api/agent/v1/resolution/votes/${sessionId} answered ${res.status}`);
    return (await res.json()) as Awaited<ReturnType<Parameters<typeof recountVotes>[0]['fetchSession']>>;
  };
  const client = createChainClient(chainDefinition(config.chain.id, config.chain.name, rpc), rpc);
  const report = await recountVotes({ client, chainId: config.chain.id, fetchSession }, market as `0x${string}`, values['from-block'] === undefined ? 0n : BigInt(values['from-block']));
  const say = (line: string) => io.out(`resolution verify: ${line}`);
  if (report.rounds.length === 0) say(`no vote of ${market.toLowerCase()} is recorded on ${report.resolver}`);
  for (const r of report.rounds) {
    say(`round ${r.round}: chain ${r.chain}; recount ${r.recount}: ${r.ok ? 'ok' : 'MISMATCH'}`);
    for (const p of r.problems) say(`  ${p}`);
  }
  return report.ok ? 0 : 1;
}

async function resolutionRestart(config: Config, market: string, args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { reason: { type: 'string' } }, strict: true });
  if (!values.reason || values.reason.trim().length === 0 || values.reason.length > 500) throw new UsageError('--reason <text> (1..500 characters) is required: it is kept with the restart');
  const { migrateToLatest, openConfiguredDatabase } = await db();
  const { requestIntegrityRestart } = await import('../services/resolution/restart.ts');
  const database = await openConfiguredDatabase(config.database);
  try {
    await migrateToLatest(database.db);
    const r = await requestIntegrityRestart({ db: database.db, chainId: config.chain.id, clock: await systemClock() }, market, values.reason.trim());
    io.out(`market ${r.market}: integrity restart ${r.existing ? 'was already requested' : 'requested'} at ${r.requestedAt.toISOString()}`);
    io.out('the resolution keeper opens vote round 2 on chain on its next pass; round 1 is then closed as replaced');
    return 0;
  } finally {
    await database.close();
  }
}

async function councilSign(config: Config, market: string, args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { outcome: { type: 'string' }, rpc: { type: 'string' } }, strict: true });
  if (values.outcome === undefined || !/^[0-9]{1,3}$/.test(values.outcome) || Number(values.outcome) > 255) throw new UsageError('--outcome <n> is required: 1-indexed, 0 for void');
  const rpc = values.rpc ?? config.chain.rpcUrl ?? `http://127.0.0.1:${config.chain.anvilPort}`;
  const { chainDefinition, createChainClient } = await import('../chain/clients.ts');
  const { loadArtifact } = await import('../chain/artifacts.ts');
  const { councilDecisionTypedData } = await import('../core/resolution/votes.ts');
  const { privateKeyToAccount } = await import('viem/accounts');
  const { existsSync } = await import('node:fs');
  const { readFile } = await import('node:fs/promises');
  if (!config.chain.operatorPrivateKey && !existsSync(config.chain.operatorKeyFile)) throw new UsageError(`no operator key: set OPERATOR_PRIVATE_KEY or run svc start once (it keeps ${config.chain.operatorKeyFile})`);
  const key = config.chain.operatorPrivateKey ?? ((await readFile(config.chain.operatorKeyFile, 'utf8')).trim() as `0x${string}`);
  const account = privateKeyToAccount(key);
  const client = createChainClient(chainDefinition(config.chain.id, config.chain.name, rpc), rpc);
  const address = market.toLowerCase() as `0x${string}`;
  const resolver = (await client.readContract({ address, abi: loadArtifact('LmsrMarket').abi, functionName: 'resolver' })) as `0x${string}`;
  const abi = loadArtifact('MarketResolver').abi;
  const record = (await client.readContract({ address: resolver, abi, functionName: 'resolutionOf', args: [address] })) as { phase: number; voteRound: number };
  if (record.phase !== 4) throw new Error(`market ${address} is not in council review on chain (resolver phase ${record.phase})`);
  if (!(await client.readContract({ address: resolver, abi, functionName: 'isCouncilMember', args: [account.address] }))) throw new Error(`the operator ${account.address} is not a council member of ${resolver}`);
  const outcome = Number(values.outcome);
  const signature = await account.signTypedData(councilDecisionTypedData(config.chain.id, resolver, { market: address, outcome, round: record.voteRound }));
  io.out(`POST ${config.publicBaseUrl}/api/agent/v1/markets/${address}/resolution/council-signatures`);
  io.out(JSON.stringify({ signer: account.address.toLowerCase(), outcome, signature }));
  return 0;
}

async function ledger(config: Config, args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'verify') throw new UsageError('svc ledger verify --contract <address> [--rpc URL] [--from-block N]');
  const { values } = parseArgs({ args: rest, options: { rpc: { type: 'string' }, contract: { type: 'string' }, 'from-block': { type: 'string' } }, strict: true });
  if (!values.contract || !/^0x[0-9a-fA-F]{40}$/.test(values.contract)) {
    throw new UsageError('--contract <address> is required: the LedgerCommitment address (GET /api/v1/ledger/proof/<any address> shows it)');
  }
  if (values['from-block'] !== undefined && !/^[0-9]+$/.test(values['from-block'])) throw new UsageError('--from-block must be a block number');
  const rpc = values.rpc ?? config.chain.rpcUrl ?? `http://127.0.0.1:${config.chain.anvilPort}`;
  const say = (line: string) => io.out(`ledger verify: ${line}`);
  const { verifyLedger } = await import('../services/ledger/verify.ts');
  const { chainDefinition, createChainClient } = await import('../chain/clients.ts');
  say(`replaying ${values.contract} from block ${values['from-block'] ?? 0} via ${rpc}`);
  const report = await verifyLedger({
    client: createChainClient(chainDefinition(config.chain.id, config.chain.name, rpc), rpc),
    contract: values.contract as `0x${string}`,
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

async function withKeyService(config: Config, fn: (service: KeyService) => Promise<number>): Promise<number> {
  const { migrateToLatest, openConfiguredDatabase } = await db();
  const { createKeyService } = await import('../services/keys/keys.ts');
  const database = await openConfiguredDatabase(config.database);
  try {
    await migrateToLatest(database.db);
    return await fn(createKeyService({ db: database.db, clock: await systemClock(), environment: config.environment }));
  } finally {
    await database.close();
  }
}
