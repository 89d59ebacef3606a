// Environment -> typed, validated config, parsed once at start-up. A bad value stops start-up
// with one line naming the variable; nothing else in the code reads process.env.
import path from 'node:path';
import { z } from 'zod';
import { defaultConfirmations } from './core/confirmations.ts';
import type { ParticipationSettings } from './services/participation/deps.ts';
import { CHALLENGE_WINDOW_SECONDS, VOTE_WINDOW_SECONDS } from './core/markets/fees.ts';
import type { HumanCheckSettings } from './services/identity/human-check.ts';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const url = z.url({ protocol: /^https?$/ });
const hex32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits');
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be an EVM address (0x + 40 hex digits)');
// Integers are written as digits: z.coerce.number() alone reads ' ' as 0 (PORT=' ' would bind a random port) and '1e3' as 1000.
const digits = z.string().trim().regex(/^[0-9]+$/, 'must be a whole number').transform(Number);
const int = (schema: z.ZodNumber) => digits.pipe(schema);
const port = int(z.number().int().min(0).max(65535));

/** The registration paths of POST /register; the operator opens them with REGISTRATION_PATHS. */
export const REGISTRATION_PATH_KINDS = ['anonymous', 'email', 'wallet', 'claim'] as const;

/** FILL_PACKS: comma list of fills:usdCents, e.g. '1000:500,5000:2000'. */
const fillPacks = z
  .string()
  .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
  .pipe(
    z.array(
      z
        .string()
        .regex(/^[1-9][0-9]{0,8}:[1-9][0-9]{0,8}$/, 'must be a comma list of fills:usdCents (positive whole numbers)')
        .transform((p) => {
          const [fills, usdCents] = p.split(':').map(Number) as [number, number];
          return { fills, usdCents };
        }),
    ),
  )
  .refine((packs) => new Set(packs.map((p) => p.fills)).size === packs.length, 'two packs have the same number of fills (a purchase names its pack by its fills)');

const EnvSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_BASE_URL: url.optional(),
  MCP_URL: url.optional(),
  /** Browser origins allowed on the MCP endpoint besides the service's own (comma list). */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
    .pipe(z.array(z.url({ protocol: /^https?$/ }))),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /**
   * The embedded PGlite's shared buffers in MB (PostgreSQL's 128 when unset); at most 1,024, as PGlite's WebAssembly memory
   * is 2 GB at most (2,048 does not start). docs/operations.md "Shared buffers".
   */
  PGLITE_SHARED_BUFFERS_MB: int(z.number().int().min(1).max(1_024)).optional(),
  CHAIN_RPC_URL: url.optional(),
  CHAIN_PUBLIC_RPC_URL: url.optional(),
  CHAIN_ID: int(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).default(8453),
  CHAIN_NAME: z.string().min(1).optional(),
  BLOCK_EXPLORER_URL: url.optional(),
  /** Blocks (its own included) a transaction's block needs before it counts; default per chain (src/core/confirmations.ts). */
  CHAIN_CONFIRMATIONS: int(z.number().int().min(1).max(1000)).optional(),
  /** How often the node's head is probed; a failed probe marks the chain down (503 for chain-dependent writes). */
  CHAIN_PROBE_INTERVAL_MS: int(z.number().int().min(100).max(60_000)).default(2_000),
  /** How often svc reconciles its chain records with the chain while running (besides at start and after the node returns). */
  CHAIN_RECONCILE_INTERVAL_MS: int(z.number().int().min(1_000).max(3_600_000)).default(30_000),
  READ_AFTER_WRITE_WINDOW_MS: int(z.number().int().min(0).max(30_000)).default(2000),
  OPERATOR_PRIVATE_KEY: hex32.optional(),
  PM_TOKEN_ADDRESS: address.optional(),
  USDC_TOKEN_ADDRESS: address.optional(),
  ANVIL_PORT: port.default(8545),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SVC_ENVIRONMENT: z.enum(['live', 'test']).optional(),
  TRUST_PROXY: bool.default(false),
  BODY_LIMIT_BYTES: int(z.number().int().min(1024).max(10 * 1024 * 1024)).default(256 * 1024),
  IDEMPOTENCY_TTL_HOURS: int(z.number().int().min(1).max(24 * 30)).default(24),
  SESSION_TTL_HOURS: int(z.number().int().min(1).max(24 * 30)).default(24),
  INDEXER_POLL_MS: int(z.number().int().min(50).max(60_000)).default(1000),
  MARKET_SCHEDULER_MS: int(z.number().int().min(50).max(60_000)).default(5000),
  EVENTS_HEARTBEAT_MS: int(z.number().int().min(20).max(300_000)).default(15_000),
  EVENTS_MAX_BUFFERED_BYTES: int(z.number().int().min(1_024).max(64 * 1024 * 1024)).default(1024 * 1024),
  EVENTS_MAX_KEYLESS_PER_ADDRESS: int(z.number().int().min(1).max(10_000)).default(16),
  /** Webhooks may target loopback, private and link-local addresses (a receiver on this machine); refused when live. */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
  /** 32 random bytes (64 hex digits) the webhook signing secrets are sealed under; default: derived from the operator key. */
  WEBHOOK_SECRET_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits (32 random bytes)').optional(),
  /** How often the webhook dispatcher schedules new events and sends due attempts (besides at once on a new event). */
  WEBHOOK_DISPATCH_INTERVAL_MS: int(z.number().int().min(50).max(60_000)).default(1000),
  /**
   * all: the whole service. api: another API process joining a deployment that an `all` process runs (same
   * DATABASE_URL, the same chain through CHAIN_RPC_URL): HTTP, MCP, event transports, webhooks and the mail drain,
   * without the chain writers (docs/architecture.md "Several processes").
   */
  SVC_ROLE: z.enum(['all', 'api']).default('all'),
  /**
   * Several processes on one PostgreSQL (docs/operations.md): the base URL the other processes reach this one's HTTP
   * server at, to forward requests for the order books it owns (default http://127.0.0.1:PORT, the port it listens on).
   */
  SVC_INTERNAL_URL: z.string().url().optional(),
  /** How often a process checks its membership, the leadership and the order-book shards (besides on each change). */
  CLUSTER_TICK_MS: int(z.number().int().min(50).max(60_000)).default(500),
  SEED_DEMO_MARKETS: bool.default(true),
  LEDGER_MODE: z.enum(['journal', 'legacy']).default('journal'),
  LEDGER_BATCH_MAX_OPS: int(z.number().int().min(1).max(10_000)).default(256),
  LEDGER_BATCH_INTERVAL_MS: int(z.number().int().min(100).max(3_600_000)).default(10_000),
  /** Play money granted when a wallet is first bound to an agent, collateral base units (6 decimals). */
  LEDGER_SIGNUP_GRANT: z.string().regex(/^[0-9]{1,30}$/, 'must be a whole number of base units').default('1000000000').transform((s) => BigInt(s)),
  REGISTRATION_PATHS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
    .pipe(z.array(z.enum(REGISTRATION_PATH_KINDS))),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().min(3).max(254).default('svc <no-reply@localhost>'),
  HUMAN_CHECK: z.enum(['pow', 'turnstile']).default('pow'),
  HUMAN_CHECK_SITEVERIFY_URL: url.default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  HUMAN_CHECK_SECRET: z.string().min(1).max(512).optional(),
  HUMAN_CHECK_SITE_KEY: z.string().min(1).max(512).optional(),
  HUMAN_CHECK_POW_BITS: int(z.number().int().min(1).max(32)).default(18),
  FILLS_ENABLED: bool.default(true),
  FILLS_FREE_PER_MONTH: int(z.number().int().min(0).max(1_000_000_000)).default(500),
  FILL_PACKS: fillPacks.default([
    { fills: 1000, usdCents: 500 },
    { fills: 5000, usdCents: 2000 },
  ]),
  /**
   * Shorter resolution windows for demos and end-to-end runs on the embedded test environment (docs/resolution.md
   * "Windows"); refused when the environment is live. Default: the spec's 2 hours and the 24-hour vote.
   */
  RESOLUTION_CHALLENGE_WINDOW_SECONDS: int(z.number().int().min(1).max(30 * 86_400)).optional(),
  RESOLUTION_VOTE_WINDOW_SECONDS: int(z.number().int().min(1).max(30 * 86_400)).optional(),
  /** Counted ballots (one per verified identity) a vote round needs for a binding verdict (docs/resolution.md "Votes"). */
  VOTE_QUORUM: int(z.number().int().min(1).max(100_000)).default(3),
  /** Blocks a pack's payment needs (its own block counts as 1) before its fills are credited; default the chain's depth. */
  FILL_PACK_CONFIRMATIONS: int(z.number().int().min(1).max(1000)).optional(),
  /** PM's price (docs/economy.md): USDC base units (6 decimals) for one whole PM; 10000 = $0.01, 100 PM a dollar. */
  PM_PRICE_USDC: int(z.number().int().min(1).max(1_000_000_000_000)).default(10_000),
  /** The card bundles, whole US dollars, comma-separated. */
  PM_CARD_BUNDLES_USD: z
    .string()
    .default('5,10,25,50,100')
    .transform((s, ctx) => {
      const parts = s.split(',').map((p) => p.trim());
      if (parts.some((p) => !/^[1-9][0-9]{0,5}$/.test(p))) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma list of whole dollar amounts (1..999999)' });
        return z.NEVER;
      }
      return [...new Set(parts.map(Number))].sort((a, b) => a - b);
    }),
  /** The card purchase cap: dollars one wallet may buy by card in PM_CARD_CAP_HOURS (rolling). */
  PM_CARD_CAP_USD: int(z.number().int().min(1).max(1_000_000_000)).default(500),
  PM_CARD_CAP_HOURS: int(z.number().int().min(1).max(24 * 366)).default(24),
  /** The smallest relay purchase, USDC base units (default $1). */
  PM_RELAY_MIN_PAYMENT: int(z.number().int().min(1).max(1_000_000_000_000)).default(1_000_000),
  /** PM (whole tokens) the operator moves into the sale contract when it deploys it; 0 leaves it empty. */
  PM_SALE_INVENTORY: int(z.number().int().min(0).max(1_000_000_000_000)).default(10_000_000),
  /** Card checkout through Stripe: both or neither. Without them the card endpoints answer 503. */
  STRIPE_SECRET_KEY: z.string().min(8).max(512).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(8).max(512).optional(),
  /** Another Stripe API origin (a local stand-in for tests); default Stripe's own. */
  STRIPE_API_BASE: url.optional(),
  /** Participation release (docs/participation.md): on, off (inactive) or retired. */
  PARTICIPATION_RELEASE: z.enum(['on', 'off', 'retired']).default('on'),
  /** Whole PM moved into the distributor when it is deployed: the release's units. */
  PARTICIPATION_POOL: int(z.number().int().min(0).max(1_000_000_000_000)).default(50_000_000),
  /** Whole PM credited for each UTC day a member's lane is active. */
  PARTICIPATION_DAILY_CREDIT: int(z.number().int().min(1).max(1_000_000_000)).default(100),
  /** Days a qualifying trade keeps the lane active (from the day after it). */
  PARTICIPATION_ACTIVE_DAYS: int(z.number().int().min(1).max(365)).default(7),
  /** The least volume (USD micro-dollars, all markets) a UTC day needs to qualify: default $1. */
  PARTICIPATION_QUALIFYING_VOLUME: int(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)).default(1_000_000),
  /** Hours between two paid distributions of one member. */
  PARTICIPATION_CLAIM_CADENCE_HOURS: int(z.number().int().min(0).max(24 * 366)).default(24),
  /** Minutes a prepared voucher stays valid. */
  PARTICIPATION_VOUCHER_MINUTES: int(z.number().int().min(1).max(24 * 60)).default(30),
  /** Days a human attestation counts for participation before it must be renewed. */
  PARTICIPATION_ATTESTATION_MAX_DAYS: int(z.number().int().min(1).max(3650)).default(365),
  /** Members must be linked under an identity (default: on a live environment). */
  PARTICIPATION_REQUIRE_IDENTITY: bool.optional(),
  /** Whole PM below which the distributor is reported degraded (PARTICIPATION_INVENTORY_LOW). */
  PARTICIPATION_LOW_WATER: int(z.number().int().min(0).max(1_000_000_000_000)).default(100_000),
});

export type Env = z.infer<typeof EnvSchema>;

/** Every variable svc reads. */
export const ENV_VARS: readonly string[] = Object.keys(EnvSchema.shape);

export interface Config {
  /**
   * SVC_ROLE: 'all' may lead (on PostgreSQL the processes elect one leader, which runs the single writers); 'api' never
   * leads. docs/operations.md.
   */
  role: 'all' | 'api';
  cluster: { internalUrl: string | null; tickMs: number };
  port: number;
  host: string;
  publicBaseUrl: string;
  mcpUrl: string;
  mcpAllowedOrigins: string[];
  dataDir: string;
  /** PGlite: `sharedBuffersMb` from PGLITE_SHARED_BUFFERS_MB, absent for PostgreSQL's default (128 MB). */
  database: { kind: 'postgres'; url: string } | { kind: 'pglite'; dir: string; sharedBuffersMb?: number };
  chain: {
    id: number;
    name: string;
    /** Embedded: we spawn anvil. External: CHAIN_RPC_URL, no anvil. */
    mode: 'embedded' | 'external';
    rpcUrl?: string;
    publicRpcUrl?: string;
    anvilPort: number;
    anvilStateFile: string;
    blockExplorerUrl: string;
    readAfterWriteWindowMs: number;
    /** Confirmation depth: blocks a block needs (itself included) before what it holds counts. */
    confirmations: number;
    probeIntervalMs: number;
    reconcileIntervalMs: number;
    operatorPrivateKey?: `0x${string}`;
    operatorKeyFile: string;
    pmTokenAddress?: `0x${string}`;
    usdcTokenAddress?: `0x${string}`;
  };
  redisUrl?: string;
  resolution: { voteQuorum: number; challengeWindowSeconds: number; voteWindowSeconds: number };
  logLevel: Env['LOG_LEVEL'];
  environment: 'live' | 'test';
  trustProxy: boolean;
  bodyLimitBytes: number;
  idempotencyTtlHours: number;
  /** Lifetime of a consumer wallet session (SIWE sign-in), hours. */
  sessionTtlHours: number;
  markets: { indexerPollMs: number; schedulerMs: number; seedDemo: boolean };
  /** WebSocket and SSE (docs/events.md): heartbeat interval, and the buffer past which a slow subscriber is closed. */
  events: { heartbeatMs: number; maxBufferedBytes: number; maxKeylessPerAddress: number };
  /** Webhooks (docs/events.md "Webhooks"): private targets allowed (never live), the sealing key (hex; else from the operator key), the dispatch interval. */
  webhooks: { allowPrivateTargets: boolean; secretKeyHex?: string; dispatchIntervalMs: number };
  /** The play-money ledger's batcher: commit mode and when a batch closes (by size or by age). */
  ledger: { mode: 'journal' | 'legacy'; batchMaxOps: number; batchIntervalMs: number; signupGrant: bigint };
  registrationPaths: (typeof REGISTRATION_PATH_KINDS)[number][];
  /** Outgoing mail; without SMTP the mail stays in the outbox table and its text is logged. */
  mail: { smtpUrl?: string; from: string };
  /** The anonymous path's human check: a local proof-of-work challenge, or a Turnstile-compatible siteverify call. */
  humanCheck: HumanCheckSettings;
  fills: { enabled: boolean; freePerMonth: number; packs: { fills: number; usdCents: number }[]; packConfirmations: number };
  /** PM purchase (docs/economy.md). */
  economy: EconomySettings;
  /** Participation release (docs/participation.md). Amounts in PM base units. */
  participation: ParticipationSettings;
}


export interface EconomySettings {
  /** USDC base units for one whole PM. */
  priceUsdcPerPm: bigint;
  bundlesUsd: number[];
  cap: { usd: number; hours: number };
  relayMinPayment: bigint;
  /** PM base units moved into the sale contract at its deployment. */
  saleInventory: bigint;
  stripe: { secretKey: string; webhookSecret: string; apiBase?: string } | null;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Never echoed in an error: a mistyped key is still (nearly) the key. */
const SECRET_VARS = new Set(['OPERATOR_PRIVATE_KEY', 'HUMAN_CHECK_SECRET', 'WEBHOOK_SECRET_KEY', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET']);

/** The bad value for the error line: URL passwords masked, control characters escaped so it stays one line. */
function printable(value: string): string {
  const masked = value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@]*):[^/@]*@/i, '$1:***@');
  const shown = JSON.stringify(masked).slice(1, -1);
  return shown.length > 120 ? `${shown.slice(0, 120)}…` : shown;
}

/** Parses the environment; throws ConfigError with one line naming the first bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const got = key in present && !SECRET_VARS.has(key) ? ` (got '${printable(present[key]!)}')` : '';
    throw new ConfigError(`config: ${key} ${issue.message}${got}`);
  }
  const e = parsed.data;
  const external = e.CHAIN_RPC_URL !== undefined;
  if (external && !e.OPERATOR_PRIVATE_KEY) {
    throw new ConfigError('config: OPERATOR_PRIVATE_KEY is required when CHAIN_RPC_URL is set');
  }
  if (external && (!e.PM_TOKEN_ADDRESS || !e.USDC_TOKEN_ADDRESS)) {
    throw new ConfigError(
      'config: PM_TOKEN_ADDRESS and USDC_TOKEN_ADDRESS are required when CHAIN_RPC_URL is set (collateral on a real chain comes from config)',
    );
  }
  if (e.SVC_ROLE === 'api' && (!e.DATABASE_URL || !external)) {
    throw new ConfigError('config: SVC_ROLE=api needs DATABASE_URL and CHAIN_RPC_URL: it joins the database and the chain of a deployment whose writers run in another svc (SVC_ROLE=all)');
  }
  if ((e.STRIPE_SECRET_KEY === undefined) !== (e.STRIPE_WEBHOOK_SECRET === undefined)) {
    throw new ConfigError('config: STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET go together (set both for card checkout, or neither)');
  }
  if (e.HUMAN_CHECK === 'turnstile' && !e.HUMAN_CHECK_SECRET) {
    throw new ConfigError('config: HUMAN_CHECK_SECRET is required when HUMAN_CHECK=turnstile');
  }
  const dataDir = path.resolve(e.DATA_DIR);
  const environment = e.SVC_ENVIRONMENT ?? (external ? 'live' : 'test');
  const windows = { challengeWindowSeconds: e.RESOLUTION_CHALLENGE_WINDOW_SECONDS ?? CHALLENGE_WINDOW_SECONDS, voteWindowSeconds: e.RESOLUTION_VOTE_WINDOW_SECONDS ?? VOTE_WINDOW_SECONDS };
  if (environment === 'live' && (windows.challengeWindowSeconds < CHALLENGE_WINDOW_SECONDS || windows.voteWindowSeconds < VOTE_WINDOW_SECONDS)) {
    throw new ConfigError(`config: RESOLUTION_CHALLENGE_WINDOW_SECONDS and RESOLUTION_VOTE_WINDOW_SECONDS cannot go below ${CHALLENGE_WINDOW_SECONDS} and ${VOTE_WINDOW_SECONDS} in a live environment`);
  }
  if (environment === 'live' && e.WEBHOOK_ALLOW_PRIVATE_TARGETS) {
    throw new ConfigError('config: WEBHOOK_ALLOW_PRIVATE_TARGETS cannot be true in a live environment (webhooks could reach private addresses)');
  }
  const confirmations = e.CHAIN_CONFIRMATIONS ?? defaultConfirmations(e.CHAIN_ID, external ? 'external' : 'embedded');
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, '');
  return {
    role: e.SVC_ROLE,
    cluster: { internalUrl: e.SVC_INTERNAL_URL?.replace(/\/+$/, '') ?? null, tickMs: e.CLUSTER_TICK_MS },
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl,
    mcpUrl: e.MCP_URL ?? `${publicBaseUrl}/mcp`,
    mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS,
    dataDir,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL }
      : { kind: 'pglite', dir: path.join(dataDir, 'pg'), ...(e.PGLITE_SHARED_BUFFERS_MB === undefined ? {} : { sharedBuffersMb: e.PGLITE_SHARED_BUFFERS_MB }) },
    chain: {
      id: e.CHAIN_ID,
      name: e.CHAIN_NAME ?? (external ? 'Base' : 'Base (local anvil)'),
      mode: external ? 'external' : 'embedded',
      rpcUrl: e.CHAIN_RPC_URL,
      publicRpcUrl: e.CHAIN_PUBLIC_RPC_URL,
      anvilPort: e.ANVIL_PORT,
      anvilStateFile: path.join(dataDir, 'chain', 'state.json'),
      blockExplorerUrl: e.BLOCK_EXPLORER_URL ?? (external ? 'https://basescan.org' : `${publicBaseUrl}/api/v1/transactions`),
      readAfterWriteWindowMs: e.READ_AFTER_WRITE_WINDOW_MS,
      confirmations,
      probeIntervalMs: e.CHAIN_PROBE_INTERVAL_MS,
      reconcileIntervalMs: e.CHAIN_RECONCILE_INTERVAL_MS,
      operatorPrivateKey: e.OPERATOR_PRIVATE_KEY as `0x${string}` | undefined,
      operatorKeyFile: path.join(dataDir, 'operator.key'),
      pmTokenAddress: e.PM_TOKEN_ADDRESS as `0x${string}` | undefined,
      usdcTokenAddress: e.USDC_TOKEN_ADDRESS as `0x${string}` | undefined,
    },
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    environment,
    trustProxy: e.TRUST_PROXY,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    idempotencyTtlHours: e.IDEMPOTENCY_TTL_HOURS,
    sessionTtlHours: e.SESSION_TTL_HOURS,
    markets: { indexerPollMs: e.INDEXER_POLL_MS, schedulerMs: e.MARKET_SCHEDULER_MS, seedDemo: e.SEED_DEMO_MARKETS },
    events: { heartbeatMs: e.EVENTS_HEARTBEAT_MS, maxBufferedBytes: e.EVENTS_MAX_BUFFERED_BYTES, maxKeylessPerAddress: e.EVENTS_MAX_KEYLESS_PER_ADDRESS },
    webhooks: { allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS, secretKeyHex: e.WEBHOOK_SECRET_KEY, dispatchIntervalMs: e.WEBHOOK_DISPATCH_INTERVAL_MS },
    ledger: { mode: e.LEDGER_MODE, batchMaxOps: e.LEDGER_BATCH_MAX_OPS, batchIntervalMs: e.LEDGER_BATCH_INTERVAL_MS, signupGrant: e.LEDGER_SIGNUP_GRANT },
    registrationPaths: e.REGISTRATION_PATHS,
    resolution: { voteQuorum: e.VOTE_QUORUM, ...windows },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    humanCheck:
      e.HUMAN_CHECK === 'turnstile'
        ? { kind: 'turnstile', siteverifyUrl: e.HUMAN_CHECK_SITEVERIFY_URL, secret: e.HUMAN_CHECK_SECRET!, siteKey: e.HUMAN_CHECK_SITE_KEY ?? null }
        : { kind: 'pow', bits: e.HUMAN_CHECK_POW_BITS },
    // Cheapest first, as GET /me publishes them.
    fills: { enabled: e.FILLS_ENABLED, freePerMonth: e.FILLS_FREE_PER_MONTH, packs: [...e.FILL_PACKS].sort((a, b) => a.usdCents - b.usdCents || b.fills - a.fills), packConfirmations: e.FILL_PACK_CONFIRMATIONS ?? confirmations },
    economy: {
      priceUsdcPerPm: BigInt(e.PM_PRICE_USDC),
      bundlesUsd: e.PM_CARD_BUNDLES_USD,
      cap: { usd: e.PM_CARD_CAP_USD, hours: e.PM_CARD_CAP_HOURS },
      relayMinPayment: BigInt(e.PM_RELAY_MIN_PAYMENT),
      saleInventory: BigInt(e.PM_SALE_INVENTORY) * 10n ** 18n,
      stripe: e.STRIPE_SECRET_KEY ? { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET!, apiBase: e.STRIPE_API_BASE } : null,
    },
    participation: {
      mode: e.PARTICIPATION_RELEASE,
      poolWei: BigInt(e.PARTICIPATION_POOL) * 10n ** 18n,
      dailyCreditWei: BigInt(e.PARTICIPATION_DAILY_CREDIT) * 10n ** 18n,
      activeDays: e.PARTICIPATION_ACTIVE_DAYS,
      qualifyingVolume: BigInt(e.PARTICIPATION_QUALIFYING_VOLUME),
      cadenceMs: e.PARTICIPATION_CLAIM_CADENCE_HOURS * 3_600_000,
      voucherMs: e.PARTICIPATION_VOUCHER_MINUTES * 60_000,
      attestationMaxAgeMs: e.PARTICIPATION_ATTESTATION_MAX_DAYS * 86_400_000,
      requireIdentity: e.PARTICIPATION_REQUIRE_IDENTITY ?? environment === 'live',
      lowWaterWei: BigInt(e.PARTICIPATION_LOW_WATER) * 10n ** 18n,
    },
  };
}
