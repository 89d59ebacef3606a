/**
 * Every problem code the service can answer, with its HTTP status and title. Services throw
 * `problem(code, detail)`; the edge (REST problem+json, MCP isError) reads status and title from
 * here, and the OpenAPI documents list the codes each capability declares.
 */
import { ProblemError, type ProblemOptions } from './errors.ts';

export const ERROR_CODES = {
  // 400 — the request is wrong
  INVALID_QUERY: { status: 400, title: 'Invalid query' },
  INVALID_PAYLOAD: { status: 400, title: 'Invalid payload' },
  INVALID_ID: { status: 400, title: 'Invalid identifier' },
  MISSING_FIELDS: { status: 400, title: 'Missing fields' },
  INVALID_CHAIN: { status: 400, title: 'Invalid chain' },
  UNSUPPORTED_CHAIN: { status: 400, title: 'Unsupported chain' },
  MALFORMED_JSON: { status: 400, title: 'Malformed JSON body' },
  MALFORMED_REQUEST: { status: 400, title: 'Malformed request' },
  INVALID_VERSION: { status: 400, title: 'Invalid Svc-Version' },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, title: 'Idempotency-Key required' },
  INVALID_IDEMPOTENCY_KEY: { status: 400, title: 'Invalid Idempotency-Key' },
  // 401 / 403 — who is asking
  API_KEY_REQUIRED: { status: 401, title: 'API key required' },
  INVALID_API_KEY: { status: 401, title: 'Invalid API key' },
  API_KEY_EXPIRED: { status: 401, title: 'API key expired' },
  API_KEY_REVOKED: { status: 401, title: 'API key revoked' },
  WALLET_AUTH_REQUIRED: { status: 401, title: 'Wallet authentication required' },
  WALLET_PROOF_INVALID: { status: 401, title: 'Wallet proof invalid' },
  SIWE_INVALID: { status: 401, title: 'Sign-in message invalid' },
  API_KEY_DORMANT: { status: 403, title: 'API key dormant' },
  INSUFFICIENT_TIER: { status: 403, title: 'Insufficient tier' },
  INSUFFICIENT_SCOPE: { status: 403, title: 'Insufficient scope' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  FEATURE_DISABLED: { status: 403, title: 'Feature disabled' },
  HUMAN_CHECK_FAILED: { status: 403, title: 'Human check failed' },
  ORIGIN_NOT_ALLOWED: { status: 403, title: 'Origin not allowed' },
  MCP_SESSION_FORBIDDEN: { status: 403, title: 'MCP session belongs to another credential' },
  HUMAN_VERIFICATION_REQUIRED: { status: 403, title: 'Verified human required' },
  REPUTATION_RESTRICTED: { status: 403, title: 'Reputation tier does not allow this' },
  // 404 / 405 / 409 / 413 / 415 / 422 / 429
  NOT_FOUND: { status: 404, title: 'Not found' },
  MARKET_NOT_FOUND: { status: 404, title: 'Market not found' },
  VOTE_SESSION_NOT_FOUND: { status: 404, title: 'Vote session not found' },
  EMAIL_LINK_INVALID: { status: 404, title: 'Email link not recognised' },
  NO_AGENT_FOR_WALLET: { status: 404, title: 'No agent is bound to this wallet' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, title: 'Request with this Idempotency-Key is still in progress' },
  WALLET_ALREADY_BOUND: { status: 409, title: 'Wallet already bound to an agent' },
  ALREADY_VOTED: { status: 409, title: 'This identity already voted in this session' },
  VOTE_CLOSED: { status: 409, title: 'Vote session not open' },
  AGENT_WALLET_ALREADY_SET: { status: 409, title: 'Agent already has a wallet' },
  EMAIL_ALREADY_VERIFIED: { status: 409, title: 'Agent already has a verified email' },
  OWNER_AGENT_LIMIT: { status: 409, title: 'Owner email already accounts for the most agents allowed' },
  EMAIL_LINK_EXPIRED: { status: 410, title: 'Email link expired' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  URI_TOO_LONG: { status: 414, title: 'URI too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'Idempotency-Key reused with a different request' },
  BALLOT_SIGNATURE_INVALID: { status: 422, title: 'Ballot signature invalid' },
  RATE_LIMITED: { status: 429, title: 'Rate limit exceeded' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  // Identity linking (docs/identity.md "Identity linking")
  WALLET_NOT_BOUND: { status: 409, title: 'No wallet bound to this agent' },
  NOT_IDENTITY_ROOT: { status: 403, title: 'Only the identity root may do this' },
  IDENTITY_NOT_FOUND: { status: 404, title: 'Wallet belongs to no identity' },
  LINK_CODE_UNKNOWN: { status: 404, title: 'Link code not recognised' },
  LINK_CODE_EXPIRED: { status: 410, title: 'Link code expired' },
  LINK_CONSENT_NOT_FOUND: { status: 404, title: 'Link consent not found' },
  LINK_CONSENT_NOT_PENDING: { status: 409, title: 'Link consent no longer pending' },
  WALLET_NOT_LINKED: { status: 404, title: 'Wallet not linked to this identity' },
  WALLET_ALREADY_LINKED: { status: 409, title: 'Wallet already belongs to an identity' },
  LINK_TO_OWN_IDENTITY: { status: 409, title: 'The identity root cannot consent to its own identity' },
  IDENTITY_LINK_CAP_REACHED: { status: 409, title: 'Identity linked-address cap reached' },
  IDENTITY_HAS_MEMBERS: { status: 409, title: 'The root cannot leave while members remain' },
  // 5xx
  // Markets: the create loop and the trade loop.
  NEGOTIATION_NOT_FOUND: { status: 404, title: 'Negotiation not found' },
  NEGOTIATION_STATE: { status: 409, title: 'Negotiation is not in a state that allows this step' },
  NEGOTIATION_EXPIRED: { status: 410, title: 'Negotiation expired' },
  TERMS_REJECTED: { status: 422, title: 'Market terms cannot be accepted' },
  LIVE_MARKET_CAP_REACHED: { status: 409, title: 'Creator already has the most live markets allowed' },
  DEPLOY_TX_PENDING: { status: 409, title: 'Deploy transaction not mined yet' },
  DEPLOY_TX_REVERTED: { status: 409, title: 'Deploy transaction reverted' },
  DEPLOY_TX_MISMATCH: { status: 422, title: 'Transaction does not deploy this negotiation' },
  MARKET_NOT_TRADEABLE: { status: 409, title: 'Market is not tradeable' },
  APPROVAL_REQUIRED: { status: 409, title: 'Token approval required' },
  INSUFFICIENT_BALANCE: { status: 409, title: 'Insufficient balance' },
  TRADE_REJECTED: { status: 422, title: 'The market refuses this trade' },
  // Play-money order books (docs/orderbook.md).
  FILL_ALLOWANCE_EXHAUSTED: { status: 402, title: 'Fill allowance exhausted' },
  ORDER_NOT_FOUND: { status: 404, title: 'Order not found' },
  ORDER_CANCEL_PENDING: { status: 409, title: 'Order cancellation not final yet' },
  FILL_PACK_NOT_FOUND: { status: 404, title: 'No fill pack of that size is offered' },
  PAYMENT_TX_NOT_FOUND: { status: 404, title: 'Payment transaction not found' },
  PAYMENT_TX_PENDING: { status: 409, title: 'Payment transaction not confirmed yet' },
  PAYMENT_TX_REVERTED: { status: 409, title: 'Payment transaction reverted' },
  PAYMENT_ALREADY_CLAIMED: { status: 409, title: 'Payment already claimed' },
  FILL_PACK_LIMIT: { status: 409, title: 'Purchased fills would exceed the most an agent can hold' },
  PAYMENT_TX_MISMATCH: { status: 422, title: 'Transaction does not pay for this pack' },
  // The play-money ledger (docs/ledger.md).
  INVALID_LEDGER_OPERATION: { status: 400, title: 'Invalid ledger operation' },
  LEDGER_INSUFFICIENT_BALANCE: { status: 409, title: 'Ledger balance too low' },
  INVALID_ADDRESS: { status: 400, title: 'Invalid address' },
  // Resolution actions (docs/resolution.md "Actions").
  RESOLUTION_STEP_REFUSED: { status: 409, title: 'The market does not take this resolution step now' },
  CHALLENGE_WINDOW_CLOSED: { status: 409, title: 'Challenge window closed' },
  CHALLENGE_WINDOW_OPEN: { status: 409, title: 'Challenge window still open' },
  PROPOSAL_SIGNATURE_INVALID: { status: 422, title: 'Proposal signature invalid' },
  NOT_COUNCIL_MEMBER: { status: 403, title: 'Signer is not a council member' },
  COUNCIL_SIGNATURE_INVALID: { status: 422, title: 'Council signature invalid' },
  ALREADY_SIGNED: { status: 409, title: 'This council member already signed another outcome in this round' },
  // Money out (docs/money-out.md).
  MARKET_NOT_RESOLVED: { status: 409, title: 'Market not resolved' },
  // Webhooks (docs/events.md "Webhooks").
  WEBHOOK_TARGET_REFUSED: { status: 400, title: 'Webhook target refused' },
  WEBHOOK_NOT_FOUND: { status: 404, title: 'Webhook endpoint not found' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, title: 'Webhook delivery not found' },
  WEBHOOK_ENDPOINT_LIMIT: { status: 409, title: 'Agent already has the most webhook endpoints allowed' },
  WEBHOOK_DISABLED: { status: 409, title: 'Webhook endpoint disabled' },
  // Market-surface frames (docs/market-data.md).
  MARKET_SURFACE_CLOSED: { status: 409, title: 'Market surface closed to publishing' },
  // Operator control edges (docs/markets.md "Controls").
  MARKET_CONTROL_REFUSED: { status: 409, title: 'Control edge does not apply to the market now' },
  FRAME_NOT_FOUND: { status: 404, title: 'Frame not found' },
  // PM purchase (docs/economy.md).
  PURCHASE_NOT_A_BUNDLE: { status: 400, title: 'Amount is not a card bundle' },
  AMOUNT_BELOW_MINIMUM: { status: 400, title: 'Payment below the sale minimum' },
  SALE_PAUSED: { status: 409, title: 'PM sale paused' },
  SALE_INVENTORY_SHORT: { status: 409, title: 'PM sale inventory short' },
  QUOTE_MISMATCH: { status: 409, title: 'Quote below minPmOut' },
  INSUFFICIENT_PAYMENT_BALANCE: { status: 409, title: 'Payment token balance too low' },
  RELAY_REVERTED: { status: 409, title: 'Relayed purchase reverted' },
  PURCHASE_CAP_EXCEEDED: { status: 429, title: 'Card purchase cap exceeded' },
  // Participation release (docs/participation.md "Reason codes").
  PARTICIPATION_RELEASE_NOT_DEPLOYED: { status: 409, title: 'Participation release not deployed' },
  PARTICIPATION_RELEASE_ROUTE_NOT_DEPLOYED: { status: 409, title: 'Participation release route not deployed' },
  PARTICIPATION_RELEASE_INACTIVE: { status: 409, title: 'Participation release inactive' },
  PARTICIPATION_DISTRIBUTION_PAUSED: { status: 409, title: 'Participation distribution paused' },
  PARTICIPATION_MONEY_PATH_INCOMPLETE: { status: 409, title: 'Participation money path incomplete' },
  PARTICIPATION_LEDGER_ACCOUNTING_INVALID: { status: 409, title: 'Participation accounting does not reconcile' },
  PARTICIPATION_ROUTE_DEGRADED: { status: 503, title: 'Participation route degraded' },
  PARTICIPATION_ROUTE_QUARANTINED: { status: 409, title: 'Participation route quarantined' },
  PARTICIPATION_INVENTORY_LOW: { status: 409, title: 'Participation inventory low' },
  ACTIVE_VERIFIED_IDENTITY_REQUIRED: { status: 403, title: 'Active verified identity required' },
  CURRENT_IDENTITY_MEMBERSHIP_REQUIRED: { status: 403, title: 'Current identity membership required' },
  AGENT_OPERATING_WALLET_NOT_LINKED: { status: 409, title: 'Agent operating wallet not linked' },
  IDENTITY_INTEGRITY_UNKNOWN: { status: 403, title: 'Identity integrity unknown' },
  NO_PARTICIPATION_RELEASE_CREDITS: { status: 409, title: 'No participation credits' },
  NEW_PARTICIPATION_RELEASE_UNITS_EXHAUSTED: { status: 409, title: 'Participation release units exhausted' },
  PARTICIPATION_CLAIM_CADENCE_ACTIVE: { status: 429, title: 'Participation claim cadence active' },
  PARTICIPATION_IDENTITY_ATTESTATION_REQUIRED: { status: 403, title: 'Fresh identity attestation required' },
  PARTICIPATION_DISTRIBUTION_ZERO_DELTA: { status: 409, title: 'Nothing new to distribute' },
  PARTICIPATION_DISTRIBUTION_ALREADY_PREPARED: { status: 409, title: 'Distribution already prepared' },
  PARTICIPATION_DISTRIBUTION_RECIPIENT_STALE: { status: 409, title: 'Distribution recipient stale' },
  PARTICIPATION_DISTRIBUTION_VOUCHER_EXPIRED: { status: 409, title: 'Distribution voucher expired' },
  PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH: { status: 422, title: 'Transaction does not carry this distribution' },
  PARTICIPATION_DISTRIBUTION_FINALITY_PENDING: { status: 409, title: 'Distribution finality pending' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Builds the typed error for `code`; its status comes from the table. */
export function problem(code: ErrorCode, detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError(code, ERROR_CODES[code].status, detail, options);
}

export const titleOf = (code: string): string =>
  (ERROR_CODES as Record<string, { title: string } | undefined>)[code]?.title ?? 'Error';
