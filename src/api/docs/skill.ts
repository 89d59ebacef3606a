/**
 * The skill: one structured object that says how an agent uses svc — the canonical loops, auth,
 * limits, errors and guarantees. GET /skill.json serves it, and skill.md, the landing page, the
 * agent-contract page, the agent card and the workflows of GET /mcp-discovery are rendered from
 * it. Every name, number and path comes from the catalog or the constants that enforce it, so no
 * document can drift from the service.
 */
import { ERROR_CODES } from '../../core/error-codes.ts';
import { ANONYMOUS_KEY_TTL_MS, ANONYMOUS_SCOPES, CLAIM_PENDING_SCOPES, EMAIL_SCOPES, WALLET_SCOPES } from '../../core/entitlement.ts';
import { TIER_DEFAULT_SCOPES } from '../../core/scopes.ts';
import { TRADE_DEFAULTS } from '../../core/trade-defaults.ts';
import { FAUCET_ASSETS, FAUCET_GRANT_WHOLE, FAUCET_LIMITS, FAUCET_WINDOW_MS } from '../../core/faucet.ts';
import { LEAF_ENCODING } from '../../core/ledger/merkle.ts';
import { WALLET_PROOF_INPUT_FIELDS, WALLET_PROOF_TEMPLATE, WALLET_PROOF_WINDOW_SECONDS } from '../../core/wallet-proof.ts';
import { WalletProofArgumentsSchema } from '../../services/identity/elevation.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../services/idempotency/idempotency.ts';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../../services/rate-limit/limits.ts';
import { type Capability } from '../catalog/types.ts';
import { AGENT_TIERS } from '../../core/tiers.ts';
import { CURRENT_VERSION, SUPPORTED_VERSIONS } from '../http/versions.ts';
import { MCP_PROTOCOL_REVISION } from '../mcp/protocol.ts';
import { isTool, toolNameOfCapability } from '../mcp/tools.ts';
import { elevatedTools, walletProofPlaceholders } from './wallet-proof-guide.ts';
import { installSnippets } from './install-snippets.ts';
import { type Skill, type SkillLoop, type SkillStep } from './skill-schema.ts';
import { documentLinks, type Site } from './links.ts';
import { jsonSchema } from './openapi.ts';


/** The agent card's own version (spec Versioning). */
export const AGENT_CARD_VERSION = '1.0.0';

interface LoopPlan {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
  /** The spec's steps, in order, by capability name; a step the catalog lacks is left out. */
  steps: { capability: string; note: string }[];
}

/** The spec's canonical agent loops ("What the service does"), then its order-book loop. */
const LOOPS: LoopPlan[] = [
  {
    id: 'discover',
    name: 'Discover markets',
    description: 'Find markets: filter by category, state, chain, creator, pricing model or text, and page through them.',
    tags: ['prediction-markets', 'discovery', 'read'],
    examples: ['List the newest open markets about elections.', 'Which markets close soonest on chain 8453?'],
    steps: [{ capability: 'GET /discover/markets', note: 'With sort=new, pass nextCursor back as cursor for the next page; other sorts return one page.' }],
  },
  {
    id: 'create',
    name: 'Create a market',
    description: 'Negotiate market terms with the protocol, accept them, then deploy the market from your own wallet and register it.',
    tags: ['prediction-markets', 'market-creation', 'negotiation'],
    examples: ['Create a binary market on whether ETH closes above 5000 USD on 31 December.', 'Check whether these market terms would be accepted.'],
    steps: [
      { capability: 'POST /negotiate/preflight', note: 'Checks the terms and reports every problem at once; changes nothing.' },
      { capability: 'POST /negotiate/propose', note: 'Records the terms as a negotiation; the protocol may counter.' },
      { capability: 'POST /negotiate/:id/accept', note: 'Accepts the terms in force (the counter, if the protocol countered). REST only, by the spec.' },
      { capability: 'POST /negotiate/:id/prepare-deploy', note: 'Returns the missing approvals and the factory transaction; your wallet signs and sends it.' },
      { capability: 'POST /negotiate/:id/commit-deploy', note: 'Send the mined transaction hash; the market is registered from its receipt.' },
    ],
  },
  {
    id: 'trade',
    name: 'Trade',
    description: 'Quote a buy or sell from the market contract, then get the transaction to sign and send from your own wallet.',
    tags: ['prediction-markets', 'trading'],
    examples: ['Buy 10 YES shares on market 0x… (10000000 base units of a USDC market).', 'What would selling my NO shares pay?'],
    steps: [
      { capability: 'POST /trade/quote', note: 'Exact cost or proceeds at the latest block, with the slippage bound; short-lived.' },
      { capability: 'POST /trade/prepare', note: 'Returns the router transaction {chainId, to, data, value}; you sign and send it. A missing approval is 409 APPROVAL_REQUIRED whose approvals[] each carry a ready transaction: send it, then prepare again.' },
    ],
  },
  {
    id: 'listen',
    name: 'Listen to events',
    description: 'Read the event catalog and reconnect protocol, subscribe over WebSocket, or receive webhooks as a fallback.',
    tags: ['prediction-markets', 'events'],
    examples: ['Tell me when a market I hold resolves.'],
    steps: [
      { capability: 'GET /events/discovery', note: 'The event catalog and reconnect protocol; then subscribe over WebSocket.' },
      { capability: 'GET /webhooks/discovery', note: 'Webhook fallback: how deliveries are signed and verified (Standard Webhooks).' },
    ],
  },
  {
    id: 'orderbook',
    name: 'Trade on an order book',
    description: 'Discover order-book markets, place and cancel orders, and reconcile fills from the order event log.',
    tags: ['prediction-markets', 'order-book', 'trading'],
    examples: ['Place a limit order for YES at 0.42 on market 0x….'],
    steps: [
      { capability: 'GET /discover/markets', note: 'With pricingModel=ORDERBOOK.' },
      { capability: 'POST /orderbook/place-order', note: 'Places an order: price a decimal string on the 0.01 tick ("0.42"), shares in base units (one share = 1000000).' },
      { capability: 'POST /orderbook/cancel-order', note: 'Starts a cancellation.' },
      { capability: 'POST /orderbook/confirm-cancel', note: 'Completes the cancellation from its receipt.' },
      { capability: 'POST /orderbook/events', note: 'Lists order events; close every gap in pushed execution reports from here.' },
      { capability: 'GET /orderbook/orders', note: 'Your open and recent orders, newest first, by market and status, each with filled, remaining and cancelled.' },
    ],
  },
];

const HOURS = (ms: number) => ms / 3_600_000;

/** Min and max length of a `{m,n}` quantifier, read from the pattern that enforces them. */
function lengthsOf(pattern: RegExp): { minLength: number; maxLength: number } {
  const m = /\{(\d+),(\d+)\}/.exec(pattern.source);
  if (!m) throw new Error(`no length bounds in ${pattern.source}`);
  return { minLength: Number(m[1]), maxLength: Number(m[2]) };
}

const stepOf = (cap: Capability, note: string): SkillStep => ({
  capability: cap.name,
  rest: `${cap.method} ${cap.fullPath}`,
  method: cap.method,
  path: cap.fullPath,
  tool: cap.mcp && 'tool' in cap.mcp ? cap.mcp.tool : null,
  restOnly: cap.mcp && 'restOnly' in cap.mcp ? cap.mcp.restOnly : null,
  requiredTier: cap.tier,
  scopes: [...cap.scopes],
  summary: cap.summary,
  note,
});

function loopsOf(agent: readonly Capability[]): SkillLoop[] {
  const byName = new Map(agent.map((c) => [c.name, c]));
  return LOOPS.map((plan) => {
    const steps: SkillStep[] = [];
    const pending: string[] = [];
    for (const s of plan.steps) {
      const cap = byName.get(s.capability);
      if (cap) steps.push(stepOf(cap, s.note));
      else pending.push(s.capability);
    }
    const status: SkillLoop['status'] = pending.length === 0 ? 'available' : steps.length === 0 ? 'not-yet-available' : 'partial';
    const description = status === 'available' ? plan.description : `${plan.description} Not yet available on this server: ${pending.join(', ')}.`;
    return { id: plan.id, name: plan.name, description, status, steps, pending, tags: plan.tags, examples: plan.examples };
  });
}

/** The faucet's two capabilities and its numbers; none on a live environment (there are no test funds there). */
function testFundsOf(agent: readonly Capability[], site: Site): Skill['testFunds'] {
  const terms = agent.find((c) => c.name === 'GET /faucet');
  const request = agent.find((c) => c.name === 'POST /faucet');
  if (!terms || !request || site.environment === 'live') return null;
  return {
    terms: stepOf(terms, 'Whether this service has a faucet (enabled), what a grant pays in base units and the limits.'),
    request: stepOf(request, 'Body {}; pays the wallet bound to your agent, every transfer confirmed before the answer.'),
    cli: 'svc faucet <address>',
    amounts: FAUCET_ASSETS.map((asset) => ({ asset, whole: FAUCET_GRANT_WHOLE[asset].toString() })),
    limits: { windowSeconds: FAUCET_WINDOW_MS / 1000, ...FAUCET_LIMITS },
    note: 'Only the embedded test environment has a faucet (GET /faucet enabled: true); elsewhere POST /faucet answers 403 FEATURE_DISABLED. A new wallet starts with 0 ETH, 0 USDC and 0 PM: bind it (wallet registration does), then ask once. Sooner than the limits allow is 429 RATE_LIMITED with Retry-After.',
  };
}

/** The proof read and how to check its answer against the chain (docs/ledger.md "Proofs"). */
function ledgerProofOf(agent: readonly Capability[], all: readonly Capability[]): Skill['ledgerProof'] {
  const read = agent.find((c) => c.name === 'GET /ledger/proof/:account');
  if (!read) return null;
  const consumer = all.find((c) => c.surface === 'consumer' && c.path === read.path);
  return {
    read: stepOf(read, 'Public. Your committed play-money balances, each with its leaf and Merkle proof against the last committed root.'),
    consumerPath: consumer?.fullPath ?? read.fullPath,
    contractView: 'ledgerRoot() returns (bytes32) on the LedgerCommitment contract at `contract`, chain `chainId`',
    leafEncoding: LEAF_ENCODING,
    steps: [
      'GET the proof for your account (lowercase or checksummed address); note root, contract, chainId and batchNonce.',
      'For each balance, recompute the leaf: leaf = keccak256(keccak256(abi.encodePacked(address account, uint256 assetId, int256 balance))) — 20 + 32 + 32 bytes, balance as a two\'s-complement int256; it must equal `leaf`.',
      'Fold the path bottom-up: node = leaf; for each sibling in `proof`, node = keccak256(min(node, sibling) ‖ max(node, sibling)) (the pair sorted as 32-byte big-endian numbers). The final node must equal `root`. This is OpenZeppelin MerkleProof.verify(proof, root, leaf).',
      'Read ledgerRoot() from `contract` on chain `chainId` (any RPC node): it must equal `root`. If batchNonce() is already higher, a newer batch was committed after the answer: fetch the proof again.',
      'Asset 0 is play-money collateral (6 decimals); asset (marketId << 8) | side is an outcome share. An account with nothing committed has no balances; operations not yet in a committed batch are not in the proof.',
    ],
  };
}

/** Page-size and limit parameters of every agent capability, read from their query schemas. */
function pagingOf(agent: readonly Capability[]): Skill['limits']['paging'] {
  return agent.flatMap((cap) => {
    if (!cap.input?.query) return [];
    const props = (jsonSchema(cap.input.query, 'input').properties ?? {}) as Record<string, { minimum?: number; maximum?: number; default?: unknown }>;
    return ['pageSize', 'limit', 'offset'].flatMap((parameter) => {
      const p = props[parameter];
      if (!p) return [];
      return [{ capability: cap.name, parameter, minimum: p.minimum ?? null, maximum: p.maximum ?? null, default: typeof p.default === 'number' ? p.default : null }];
    });
  });
}

export function buildSkill(catalog: readonly Capability[], site: Site): Skill {
  const agent = catalog.filter((c) => c.surface === 'agent');
  const links = documentLinks(site);
  const base = site.publicBaseUrl.replace(/\/+$/, '');
  const toolCount = agent.filter(isTool).length;
  const restOnlyCount = agent.length - toolCount;
  const idempotencyKey = lengthsOf(IDEMPOTENCY_KEY_PATTERN);
  const nonce = WalletProofArgumentsSchema.shape.proofNonce;
  const proofNonce = { minLength: nonce.minLength ?? 1, maxLength: nonce.maxLength ?? 256 };

  const loops = loopsOf(agent);
  const served = loops.filter((l) => l.status === 'available').map((l) => l.name.toLowerCase());
  return {
    name: 'svc',
    title: 'svc: an agent-native prediction-market protocol',
    description: `svc is an agent-native prediction-market protocol on chain ${site.chainId}: agents use it through scoped capabilities over REST (${links.apiBase}) or MCP (${links.mcp}), and sign their own transactions, which the service prepares. Loops served here: ${served.join(', ') || 'none yet'}.`,
    version: CURRENT_VERSION,
    chainId: site.chainId,
    environment: site.environment,
    links,
    loops,
    mcp: {
      url: links.mcp,
      transport: 'streamable-http',
      specVersion: MCP_PROTOCOL_REVISION,
      toolCount,
      restOnlyCount,
      install: installSnippets(links.mcp),
    },
    auth: {
      scheme: 'bearer',
      header: 'Authorization: Bearer <API_KEY>',
      alias: 'X-API-Key: <API_KEY>',
      publicCapabilities: agent.filter((c) => c.tier === null).map((c) => c.name),
      publicTools: agent.filter((c) => c.tier === null && isTool(c)).map(toolNameOfCapability),
      tiers: AGENT_TIERS.map((tier, i) => ({ tier, includes: AGENT_TIERS.slice(0, i).reverse(), defaultScopes: [...TIER_DEFAULT_SCOPES[tier]] })),
      registration: {
        url: `${links.apiBase}/register`,
        statusUrl: links.mcpDiscovery,
        note: 'Self-serve registration is closed by default: read registration.paths[].status and registration.claim.status from GET /mcp-discovery before registering. A closed path answers 403 FEATURE_DISABLED with reason AGENT_REGISTRATION_CLOSED.',
        paths: [
          { kind: 'anonymous', requires: ['humanCheckToken'], grantsScopes: [...ANONYMOUS_SCOPES], summary: `An active read-only key that expires after ${HOURS(ANONYMOUS_KEY_TTL_MS)} hours; bind an email or a wallet to keep the agent.` },
          { kind: 'email', requires: ['email'], grantsScopes: [...EMAIL_SCOPES], summary: 'A dormant key until the mailed magic link is opened.' },
          { kind: 'wallet', requires: ['walletProof'], grantsScopes: [...WALLET_SCOPES], summary: "An active execute key with no expiry; the wallet's own balance and allowances are the spend budget." },
          { kind: 'claim', requires: ['walletProof', 'ownerEmail'], grantsScopes: [...CLAIM_PENDING_SCOPES], summary: 'Reads and quotes at once; gains the trading scopes when the owner opens the claim link.' },
        ],
      },
      walletProof: {
        template: WALLET_PROOF_TEMPLATE,
        fields: [...WALLET_PROOF_INPUT_FIELDS],
        signing: 'EIP-191 personal_sign of the filled template; optional scalar fields collapse to "-".',
        payloadHash: 'SHA-256 (0x-hex) of the canonical JSON of the tool arguments without the proof fields and idempotencyKey (keys sorted recursively; absent payload hashes as {}).',
        nonceEndpoint: `${base}/api/auth/nonce`,
        windowSeconds: WALLET_PROOF_WINDOW_SECONDS,
        placeholders: walletProofPlaceholders(site.chainId),
        elevatedTools: elevatedTools(agent),
      },
      idempotency: {
        header: 'Idempotency-Key',
        toolArgument: 'idempotencyKey',
        ...idempotencyKey,
        semantics:
          'Mutating REST writes require the Idempotency-Key header unless documented exempt. Over MCP every tool whose REST twin is not a GET takes the idempotencyKey argument, which is that header: required (400 IDEMPOTENCY_KEY_REQUIRED without it) exactly where REST requires the header, optional and unused where REST exempts the call or the call changes nothing (readOnlyHint). REST and MCP share one store per API key. The same key with the same request returns the stored response (Idempotent-Replayed: true; over MCP _meta svc/idempotentReplayed) and changes nothing more; with a different request it is refused (422 IDEMPOTENCY_KEY_REUSED); while the first is still running, 409 IDEMPOTENCY_IN_PROGRESS.',
      },
    },
    limits: {
      rateWindowSeconds: RATE_WINDOW_MS / 1000,
      rateLimits: Object.entries(RATE_LIMITS).map(([caller, l]) => ({ caller: caller === 'anonymous' ? 'no key (per address)' : caller, read: l.read, write: l.write })),
      rateHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
      uncharged: agent.filter((c) => c.rateClass === 'uncharged').map((c) => c.name),
      paging: pagingOf(agent),
      idempotencyKey,
      proofNonce,
      walletProofWindowSeconds: WALLET_PROOF_WINDOW_SECONDS,
      anonymousKeyTtlHours: HOURS(ANONYMOUS_KEY_TTL_MS),
      tradeDefaults: { ...TRADE_DEFAULTS },
    },
    errors: {
      contentType: 'application/problem+json',
      shape: {
        type: `URI ${base}/errors/<CODE>`,
        title: 'short title of the code',
        status: 'HTTP status',
        detail: 'what went wrong and what to do next',
        code: 'stable machine-readable code (the Errors table lists them all)',
        errors: 'optional: [{path, message}] for each invalid field (body.x, query.y, params.z)',
        requestId: 'equals the X-Request-Id response header',
      },
      typeBase: `${base}/errors/`,
      mcp: 'A failing MCP tool call answers isError: true with the same problem body as JSON text content.',
      retry: 'A 429 carries Retry-After (seconds): honour it before anything else. 409 IDEMPOTENCY_IN_PROGRESS and 503 SERVICE_UNAVAILABLE also carry Retry-After.',
      codes: Object.entries(ERROR_CODES).map(([code, e]) => ({ code, status: e.status, title: e.title })),
    },
    versioning: {
      header: 'Svc-Version',
      current: CURRENT_VERSION,
      supported: [...SUPPORTED_VERSIONS],
      whenOmitted: 'the current version; agent responses name the version in force in their Svc-Version header, and an unsupported one is 400 INVALID_VERSION',
      mcpSpecVersion: MCP_PROTOCOL_REVISION,
      agentCardVersion: AGENT_CARD_VERSION,
    },
    testFunds: testFundsOf(agent, site),
    ledgerProof: ledgerProofOf(agent, catalog),
    guarantees: [
      {
        id: 'idempotency',
        title: 'Retries are safe',
        text: `Every mutating write takes a retry key (Idempotency-Key header on REST, idempotencyKey argument on MCP, ${idempotencyKey.minLength}..${idempotencyKey.maxLength} visible ASCII characters). The same key with the same request answers the stored response again and changes nothing more; the same key with a different request is refused with 422 IDEMPOTENCY_KEY_REUSED.`,
      },
      {
        id: 'errors',
        title: 'Errors are problem+json with stable codes',
        text: `Every failure, including unknown routes, bad JSON, validation, auth and rate limits, answers application/problem+json {type, title, status, detail, code}. Codes are stable strings (${Object.keys(ERROR_CODES).length} today, all in the Errors table); branch on code, not on detail text. MCP tool errors carry the same body with isError: true.`,
      },
      {
        id: 'money',
        title: 'Money is exact',
        text: 'One unit system on every surface: amounts are decimal strings of non-negative integers in the token\'s smallest unit (WeiString, e.g. 6 decimals for USDC); shares are base units of their collateral too (a share that pays 1 USDC or 1 play dollar is 1000000), in orders, depth, trades, holders and fills alike; prices are exact decimal strings in [0, 1] ("0.57"); fee rates are integer basis points. pricingModel is automated or ORDERBOOK everywhere (LMSR is accepted on input as another name for automated). No balance, cost, fee or payout passes through floating point; only displayed probabilities may be floats.',
      },
      {
        id: 'wallet-proof',
        title: 'Wallet proofs are bound',
        text: `An elevated tool call carries an EIP-191 signature of ${WALLET_PROOF_TEMPLATE}. It binds agent, key, tool, scope, chain, wallet, resource and the payload hash, uses a single-use nonce from POST /api/auth/nonce, and is valid for ${WALLET_PROOF_WINDOW_SECONDS} s: it cannot be replayed or reused for another agent, tool or resource.`,
      },
      {
        id: 'self-custody',
        title: 'Agents sign their own transactions',
        text: 'prepare endpoints return {chainId, to, data, value} (trade/prepare answers a missing approval with 409 APPROVAL_REQUIRED carrying the ready approval transaction; prepare-deploy lists the approvals still needed); the agent signs and sends from its own wallet and the service reads the receipt. The operator key pays gas only for what the protocol itself submits (claims, creator-fund collections, sweeps, ledger commits).',
      },
      {
        id: 'surfaces',
        title: 'MCP mirrors REST',
        text: `The MCP tool list is the agent capability catalog minus the REST-only capabilities the spec names: ${toolCount} tools = ${agent.length} agent capabilities - ${restOnlyCount} REST-only. A tool runs the same handler, validation, idempotency and rate limit as its REST twin. GET /catalog.json lists both.`,
      },
      {
        id: 'versioning',
        title: 'Versions are pinned',
        text: `The agent REST API is versioned by date: send Svc-Version: ${CURRENT_VERSION} to pin it; without it you get the current version, which every agent response names in its Svc-Version header. The MCP endpoint speaks specification revision ${MCP_PROTOCOL_REVISION}.`,
      },
      {
        id: 'generated',
        title: 'Documents cannot drift',
        text: 'openapi.json, catalog.json, the MCP tool list, this skill and the agent card are generated from the one capability catalog and the constants the service enforces.',
      },
    ],
  };
}
