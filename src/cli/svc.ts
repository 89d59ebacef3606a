// `svc` command line: start, migrate, keys create|revoke, agents create, comment add, seed, faucet, market <edge>,
// ledger verify, identity verify|revoke|status, resolution verify|restart|council-sign. Each prints one clear line on
// failure. The operator commands (OPERATOR_COMMANDS) run inside the running service over its operator channel when one
// answers, and on the database directly otherwise (docs/operator.md).
import { CONTROL_EDGES, type ControlEdge } from '../core/markets/controls.ts';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { ProblemError } from '../core/errors.ts';
import { isScope, TIER_DEFAULT_SCOPES, type Scope } from '../core/scopes.ts';
import { AGENT_TIERS, type AgentTier } from '../core/tiers.ts';
import type { Runtime } from '../runtime/runtime.ts';
import type { OperatorChannel, RunOperatorCommand } from './operator-channel.ts';
import type { OperatorHost } from './operator-host.ts';

/** Where a command writes its lines (the process's stdout and stderr, or a test's buffers). */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

// Each command imports what it needs when it runs: usage errors and `svc help` answer without loading the
// database, the chain client or the HTTP server.
const systemClock = async () => (await import('../core/clock.ts')).systemClock;
const logger = async (level: string) => (await import('../runtime/logger.ts')).createLogger(level);

const USAGE = `usage:
  svc start                      run the service (embedded PGlite + anvil unless DATABASE_URL / CHAIN_RPC_URL)
  svc start --workers <n>        run n service processes on one port (needs DATABASE_URL and CHAIN_RPC_URL)
  svc migrate                    apply database migrations
  svc agents create --name <name> [--tier <read-only|propose|execute>] [--scopes a,b] [--wallet <address>] [--label text]
                                 make an agent (tier execute unless named, the tier's scopes unless named) and its
                                 API key (printed once); --wallet binds a wallet you vouch for (it gets the signup grant)
  svc keys create --tier <read-only|propose|execute> [--scopes a,b] [--label text] [--agent <agentId>]
                                 issue an operator API key (printed once): no agent behind it, so GET /me and every
                                 agent route refuse it; use svc agents create for a key an agent can use (--agent:
                                 another key for an agent svc agents create made)
  svc keys revoke <keyId>        revoke an API key
  svc comment add --market <address> --author <address> --body <text> [--chain-id <id>]
                                 add a human comment to a market (as written through the web)
  svc seed                       create demo markets with real trades by dev accounts (embedded chain)
  svc faucet <address>           send test funds (ETH, TestUSDC, PM: docs/faucet.md) to any address
                                 (embedded test environment only)
  svc market <edge> <address> [--reason CODE]
                                 an operator control edge (docs/markets.md "Controls"), one market.controlsChanged
                                 per axis it moves: halt, unfreeze (interaction); takedown (cascade: hidden, halted,
                                 locked, resting orders cancelled), reinstate (policy); quarantine, release,
                                 graduate (discovery); lock, unlock (mutation)
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
                                 (default RPC: CHAIN_RPC_URL, else the embedded anvil on ANVIL_PORT)

While svc start runs, migrate, agents, keys, comment, seed, faucet, market, identity and resolution restart run inside
it over its operator channel (DATA_DIR/operator.sock, your user only); otherwise they open the database themselves.`;

class UsageError extends Error {}

/** An operator command once its arguments are checked: runs on a host (the running service, or the database). */
type Operation = (host: OperatorHost, io: CliIo) => Promise<number>;

/**
 * The commands that act on the service's database or services. Each checks its arguments first (a usage error costs
 * no I/O and reads the same either way), then returns the operation to run where the service is.
 */
const OPERATOR_COMMANDS: Record<string, (args: string[], config: Config) => Operation | Promise<Operation>> = {
  migrate: (args) => migrate(args),
  keys: (args) => keys(args),
  agents: (args) => agents(args),
  comment: (args) => comment(args),
  seed: (args, config) => seed(config, args),
  faucet: (args, config) => faucet(config, args),
  market: (args) => market(args),
  identity: (args) => identity(args),
  resolution: (args) => resolutionRestart(args),
};

/**
 * Runs `svc <argv>` and resolves to its exit code. Failures are one line on `io.err`; the full usage is `svc help`.
 * `start` runs until a signal and is meant for the process entry (src/cli/main.ts) only.
 */
export async function svc(argv: string[], io: CliIo, env: Record<string, string | undefined> = process.env): Promise<number> {
  return reportFailure(io, () => command(argv, io, env));
}

/** The one line a failure prints, the same in this process and inside the service (over the operator channel). */
async function reportFailure(io: CliIo, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
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
      return startCommand(rest, loadConfig(env));
    case 'ledger':
      return ledger(loadConfig(env), rest, io);
    case 'resolution':
      if (rest[0] !== 'restart') return resolution(loadConfig(env), rest, io);
      break;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.out(USAGE);
      return name === undefined ? 1 : 0;
  }
  if (!Object.hasOwn(OPERATOR_COMMANDS, name)) throw new UsageError(`unknown command '${name}'`);
  const config = loadConfig(env);
  const operation = await OPERATOR_COMMANDS[name]!(rest, config);
  return runOperation(config, argv, operation, io);
}

/** Sends the command to the service running on this DATA_DIR when one answers; otherwise runs it on the database. */
async function runOperation(config: Config, argv: string[], operation: Operation, io: CliIo): Promise<number> {
  const { callOperatorChannel } = await import('./operator-channel.ts');
  const answered = await callOperatorChannel(config.dataDir, argv, io);
  if (answered !== null) return answered;
  const { withDirectHost } = await import('./operator-host.ts');
  const { FolderInUseError } = await import('../db/lock.ts');
  try {
    return await withDirectHost(config, await logger(config.logLevel), await systemClock(), (host) => operation(host, io));
  } catch (err) {
    if (err instanceof FolderInUseError) {
      throw new Error(`${err.message}; no service answered on ${config.dataDir}/operator.sock (its start output says whether the operator channel is off, and why)`, { cause: err });
    }
    throw err;
  }
}

/** What the operator channel runs: the operator commands only, on the running service, failures as in the CLI. */
export function operatorCommandRunner(runtime: Runtime): RunOperatorCommand {
  return (argv, io) =>
    reportFailure(io, async () => {
      const host = (await import('./operator-host.ts')).serviceHost(runtime);
      const [name, ...rest] = argv;
      if (name === undefined || !Object.hasOwn(OPERATOR_COMMANDS, name)) throw new UsageError(`'${name ?? ''}' is not an operator command`);
      const operation = await OPERATOR_COMMANDS[name]!(rest, host.config);
      return operation(host, io);
    });
}

/** `svc start [--workers N]`: one process, or a supervisor of N worker processes (src/cli/workers.ts). */
async function startCommand(args: string[], config: Config): Promise<number> {
  const { values } = parseArgs({ args, options: { workers: { type: 'string' } }, strict: true });
  if (values.workers === undefined) return start(config);
  const { cluster, MAX_WORKERS, superviseWorkers, workersRefusal } = await import('./workers.ts');
  // A worker runs `svc start` as one process of the supervisor's (its args are the supervisor's: `start`).
  if (cluster.isWorker) return start(config);
  const count = /^[0-9]{1,2}$/.test(values.workers) ? Number(values.workers) : NaN;
  if (!(count >= 1 && count <= MAX_WORKERS)) throw new UsageError(`--workers must be a whole number from 1 to ${MAX_WORKERS}`);
  const refusal = workersRefusal(config);
  if (refusal) throw new UsageError(refusal);
  return superviseWorkers(config, count, (line) => process.stdout.write(`svc: ${line}\n`));
}

async function start(config: Config): Promise<number> {
  const began = Date.now();
  const { cluster, WORKER_READY } = await import('./workers.ts');
  const worker = cluster.isWorker ? cluster.worker : undefined;
  const say = (line: string) => process.stdout.write(`${worker ? `svc[worker ${worker.id}]` : 'svc'}: ${line}\n`);
  // Handlers go in before start-up: a signal during start-up must still stop anvil and release the
  // PGlite lock (Node's default action would exit at once and leave anvil running on its port).
  const started: { runtime?: Runtime; channel?: OperatorChannel } = {};
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      if (!started.runtime) process.exit(130); // second signal while still starting: give up (the exit hook stops anvil)
      return;
    }
    stopping = true;
    say(`${signal} received: stopping`);
    if (!started.runtime) return; // still starting: stopped below once start-up returns
    await started.channel?.close();
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
    await runtime.listen({ ownInternalPort: worker !== undefined });
  } catch (err) {
    await runtime.close(); // otherwise anvil and PGlite keep the process alive after the error
    throw err;
  }
  const operator = await serveOperatorChannel(runtime);
  if ('channel' in operator) started.channel = operator.channel;
  const { startBanner } = await import('./banner.ts');
  const facts = { config, seconds: (Date.now() - began) / 1000, rpcUrl: runtime.rpcUrl, embeddedAnvil: runtime.anvil !== null };
  for (const line of startBanner({ ...facts, operator: 'channel' in operator ? { socket: operator.channel.path } : operator })) say(line);
  worker?.send(WORKER_READY);
  return new Promise<number>(() => undefined); // runs until a signal
}

/**
 * Opens the running service's operator channel (DATA_DIR/operator.sock), as `svc start` does. When it cannot be opened
 * (an unsafe folder, another live service on it) the service runs without it and the reason is returned.
 */
export async function serveOperatorChannel(runtime: Runtime): Promise<{ channel: OperatorChannel } | { off: string }> {
  const { openOperatorChannel, OperatorChannelUnavailable } = await import('./operator-channel.ts');
  try {
    return { channel: await openOperatorChannel({ dataDir: runtime.config.dataDir, run: operatorCommandRunner(runtime), log: runtime.log }) };
  } catch (err) {
    if (!(err instanceof OperatorChannelUnavailable)) throw err;
    runtime.log.warn({ reason: err.message }, 'operator channel off');
    return { off: err.message };
  }
}

function migrate(_args: string[]): Operation {
  return async (host, io) => {
    const applied = await host.migrate();
    io.out(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
    return 0;
  };
}

/** --tier and --scopes as `svc keys create` and `svc agents create` read them: the tier's default scopes unless named. */
function tierAndScopes(values: { tier?: string; scopes?: string }, defaultTier?: AgentTier): { tier: AgentTier; scopes: Scope[] } {
  const tierName = values.tier ?? defaultTier;
  if (!tierName || !(AGENT_TIERS as readonly string[]).includes(tierName)) {
    throw new UsageError(`--tier must be one of ${AGENT_TIERS.join(', ')}`);
  }
  const tier = tierName as AgentTier;
  const named = values.scopes === undefined ? [...TIER_DEFAULT_SCOPES[tier]] : values.scopes.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = named.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
  return { tier, scopes: named.filter(isScope) };
}

const keyServiceOf = async (host: OperatorHost) =>
  (await import('../services/keys/keys.ts')).createKeyService({ db: await host.db(), clock: host.clock, environment: host.config.environment });

function keys(args: string[]): Operation {
  // Arguments are checked before the database is opened, so a typo neither waits for nor creates one.
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parseArgs({ args: rest, options: { tier: { type: 'string' }, scopes: { type: 'string' }, label: { type: 'string' }, agent: { type: 'string' } }, strict: true });
    const { tier, scopes } = tierAndScopes(values);
    const agentId = values.agent ?? null;
    if (agentId !== null && !/^[0-9a-f-]{36}$/i.test(agentId)) throw new UsageError(`'${agentId}' is not an agent id (a UUID)`);
    return async (host, io) => {
      if (agentId !== null) await operatorAgentOf(host, agentId);
      const issued = await (await keyServiceOf(host)).create({ tier, scopes, label: values.label ?? null, agentId });
      io.out(`key id:  ${issued.record.id}`);
      if (agentId !== null) io.out(`agent:   ${agentId}`);
      io.out(`tier:    ${tier}`);
      io.out(`scopes:  ${scopes.join(' ')}`);
      io.out(`api key: ${issued.key}`);
      io.out('Store the key now: it is shown once and kept only as a hash.');
      if (agentId === null) io.out('This is an operator key: no agent is behind it (GET /me refuses it). svc agents create makes an agent with a key.');
      return 0;
    };
  }
  if (sub === 'revoke') {
    const keyId = rest[0];
    if (!keyId || rest.length !== 1) throw new UsageError('svc keys revoke <keyId>');
    if (!/^[0-9a-f-]{36}$/i.test(keyId)) throw new UsageError(`'${keyId}' is not a key id (a UUID)`);
    return async (host, io) => {
      const record = await (await keyServiceOf(host)).revoke(keyId);
      io.out(`revoked ${record.id} (${record.prefix}…)`);
      return 0;
    };
  }
  throw new UsageError('svc keys create|revoke');
}

/** An agent the operator made (svc agents create): the only agents whose keys the operator issues. */
async function operatorAgentOf(host: OperatorHost, agentId: string): Promise<void> {
  const { findAgent } = await import('../services/identity/agents.ts');
  const agent = await findAgent(await host.db(), agentId);
  if (!agent) throw new Error(`no agent with id ${agentId}`);
  if (agent.registration_path !== 'operator') {
    throw new Error(`agent ${agentId} registered on the ${agent.registration_path} path: its keys follow what it proved (POST /keys/{keyId}/rotate, POST /keys/recover), not the operator`);
  }
}

async function agents(args: string[]): Promise<Operation> {
  const [sub, ...rest] = args;
  if (sub !== 'create') throw new UsageError('svc agents create --name <name> [--tier <tier>] [--scopes a,b] [--wallet <address>] [--label text]');
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: 'string' }, tier: { type: 'string' }, scopes: { type: 'string' }, wallet: { type: 'string' }, label: { type: 'string' } },
    strict: true,
  });
  if (values.name === undefined) throw new UsageError('svc agents create needs --name <name>');
  // The rule POST /register applies to names: they show on profiles and in mail.
  const { AgentName } = await import('../api/catalog/identity/register.ts');
  const name = AgentName.safeParse(values.name);
  if (!name.success) throw new UsageError(`--name ${name.error.issues[0]?.message ?? 'is not a valid agent name'} (1..64 characters)`);
  const { tier, scopes } = tierAndScopes(values, 'execute');
  if (values.wallet !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(values.wallet)) throw new UsageError(`'${values.wallet}' is not a wallet address (0x + 40 hex digits)`);
  const wallet = values.wallet ?? null;
  return async (host, io) => {
    const { createOperatorAgent } = await import('../services/identity/operator-agent.ts');
    const { signupGrant } = await import('../services/identity/signup-grant.ts');
    const grant = host.config.ledger.signupGrant;
    const made = await createOperatorAgent(
      { db: await host.db(), clock: host.clock, keys: await keyServiceOf(host), onWalletBound: wallet ? signupGrant(await host.ledger(), grant) : undefined },
      { name: name.data, tier, scopes, wallet, label: values.label ?? null },
    );
    io.out(`agent id: ${made.agent.id}`);
    io.out(`name:     ${made.agent.name}`);
    io.out(`wallet:   ${made.agent.walletAddress ?? 'none (the agent binds one with POST /api/agent/v1/agents/me/bind-wallet)'}`);
    if (made.agent.walletAddress && grant > 0n) io.out(`play money: ${grant} base units credited to the wallet (LEDGER_SIGNUP_GRANT)`);
    io.out(`key id:   ${made.keyRecord.id}`);
    io.out(`tier:     ${tier}`);
    io.out(`scopes:   ${scopes.join(' ')}`);
    io.out(`api key:  ${made.key}`);
    io.out('Store the key now: it is shown once and kept only as a hash.');
    io.out(`Try it:   curl -H "Authorization: Bearer <api key>" ${host.config.publicBaseUrl}/api/agent/v1/me`);
    return 0;
  };
}
async function comment(args: string[]): Promise<Operation> {
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
  const chainIdArg = values['chain-id'];
  const { addComment, checkComment } = await import('../services/markets/comments.ts');
  checkComment({ market, author, body }); // before the database is opened, like the keys commands
  return async (host, io) => {
    const chainId = chainIdArg === undefined ? host.config.chain.id : Number(chainIdArg);
    const added = await addComment(await host.db(), host.clock, { market, author, body, chainId });
    io.out(`comment id: ${added.id}`);
    io.out(`market:     ${added.market} (chain ${added.chainId})`);
    io.out(`author:     ${added.author}`);
    return 0;
  };
}

function seed(config: Config, args: string[]): Operation {
  if (args.length > 0) throw new UsageError('svc seed takes no arguments');
  if (config.chain.mode !== 'embedded') throw new UsageError('svc seed funds dev accounts from the embedded anvil; it does not run against CHAIN_RPC_URL');
  return async (host, io) => {
    const say = (line: string) => io.out(`svc: ${line}`);
    // Without a running service this starts one for the command (its start-up lines are printed).
    const runtime = await host.runtime(say);
    const created = await runtime.seed(true);
    say(`seed: created ${created} demo markets with trades`);
    return 0;
  };
}

async function faucet(config: Config, args: string[]): Promise<Operation> {
  const [address, ...extra] = args;
  if (!address || extra.length > 0) throw new UsageError('svc faucet <address>');
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new UsageError(`'${address}' is not an address (0x + 40 hex digits)`);
  const { faucetOffReason, FAUCET_OFF_DETAIL } = await import('../core/faucet.ts');
  const off = faucetOffReason(config.environment, config.chain.mode);
  if (off) throw new Error(`${FAUCET_OFF_DETAIL[off]} (${off})`);
  // The command pays through the service's relayer: the running service's (over the operator channel), or, like svc
  // seed, one started for the command (anvil on its state, the database, the relayer). A transfer a crash left in
  // flight is finished by the next start (relayer resume); running the command again is a new grant (the operator's
  // grants are not rate-limited).
  return async (host, io) => {
    const { formatUnits } = await import('viem');
    const runtime = await host.runtime();
    const grant = await runtime.services.faucet.fund(address);
    io.out(`faucet: paid ${grant.wallet} on chain ${grant.chainId} (grant ${grant.id})`);
    for (const t of grant.transfers) io.out(`  ${t.asset.padEnd(4)} ${formatUnits(t.amount, t.decimals)} (${t.amount} base units)  tx ${t.txHash}  block ${t.blockNumber}`);
    return 0;
  };
}

const isControlEdge = (s: string | undefined): s is ControlEdge => (CONTROL_EDGES as readonly string[]).includes(s ?? '');

function market(args: string[]): Operation {
  const [sub, address, ...rest] = args;
  if (!isControlEdge(sub) || !address) throw new UsageError(`svc market ${CONTROL_EDGES.join('|')} <address> [--reason CODE]`);
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new UsageError(`'${address}' is not a market address (0x + 40 hex digits)`);
  const { values } = parseArgs({ args: rest, options: { reason: { type: 'string' } }, strict: true });
  if (values.reason !== undefined && !/^[A-Z][A-Z0-9_]{0,63}$/.test(values.reason)) throw new UsageError('--reason must be an UPPER_SNAKE code (at most 64 characters)');
  return async (host, io) => {
    const { createMarketLifecycle } = await import('../services/markets/lifecycle.ts');
    const lifecycle = createMarketLifecycle({ db: await host.db(), clock: host.clock, events: await host.events(), log: host.log, intervalMs: host.config.markets.schedulerMs });
    const r = await lifecycle.setControl(host.config.chain.id, address, sub, values.reason ?? null);
    const moved = r.changes.map((c) => `${c.axis} ${c.previousState} -> ${c.newState}`).join(', ');
    io.out(`market ${address.toLowerCase()}: ${moved || `${sub}: nothing to change`}; isTradeable ${r.isTradeable}`);
    return 0;
  };
}

function identity(args: string[]): Operation {
  const [sub, wallet, ...rest] = args;
  if (!['verify', 'revoke', 'status'].includes(sub ?? '') || !wallet) throw new UsageError('svc identity verify|revoke|status <wallet> [--reference text]');
  if (!/^0x[0-9a-fA-F]{40}$/.test(wallet)) throw new UsageError(`'${wallet}' is not a wallet address (0x + 40 hex digits)`);
  const { values } = parseArgs({ args: rest, options: { reference: { type: 'string' } }, strict: true });
  if (values.reference !== undefined && (sub !== 'verify' || values.reference.length === 0 || values.reference.length > 200)) {
    throw new UsageError('--reference (1..200 characters) goes with svc identity verify');
  }
  return async (host, io) => {
    const { createHumanVerificationService } = await import('../services/identity/human-verification.ts');
    const humans = createHumanVerificationService({ db: await host.db(), clock: host.clock });
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
  };
}

async function resolution(config: Config, args: string[], io: CliIo): Promise<number> {
  const [sub, market, ...rest] = args;
  const usage = 'svc resolution verify|restart|council-sign <market> …';
  if (!['verify', 'council-sign'].includes(sub ?? '') || !market) throw new UsageError(usage);
  if (!/^0x[0-9a-fA-F]{40}$/.test(market)) throw new UsageError(`'${market}' is not a market address (0x + 40 hex digits)`);
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

/** `svc resolution restart` (the one resolution command that writes the database: an operator command). */
function resolutionRestart(args: string[]): Operation {
  const [sub, market, ...rest] = args;
  if (sub !== 'restart' || !market) throw new UsageError('svc resolution restart <market> --reason <text>');
  if (!/^0x[0-9a-fA-F]{40}$/.test(market)) throw new UsageError(`'${market}' is not a market address (0x + 40 hex digits)`);
  const { values } = parseArgs({ args: rest, options: { reason: { type: 'string' } }, strict: true });
  if (!values.reason || values.reason.trim().length === 0 || values.reason.length > 500) throw new UsageError('--reason <text> (1..500 characters) is required: it is kept with the restart');
  const reason = values.reason.trim();
  return async (host, io) => {
    const { requestIntegrityRestart } = await import('../services/resolution/restart.ts');
    const r = await requestIntegrityRestart({ db: await host.db(), chainId: host.config.chain.id, clock: host.clock }, market, reason);
    io.out(`market ${r.market}: integrity restart ${r.existing ? 'was already requested' : 'requested'} at ${r.requestedAt.toISOString()}`);
    io.out('the resolution keeper opens vote round 2 on chain on its next pass; round 1 is then closed as replaced');
    return 0;
  };
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
