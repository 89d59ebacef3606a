/**
 * Wallet-proof elevation messages (spec: Authentication, wallet-proof elevation). Pure: builds the
 * exact text an agent signs with EIP-191; verification (signature, window, single-use nonce)
 * lives in services/identity/wallet-proof.ts.
 */
import { canonicalHash } from './canonical-json.ts';

export const WALLET_PROOF_TAG = 'svc-mcp-auth';
/** Proof window and nonce TTL, seconds. */
export const WALLET_PROOF_WINDOW_SECONDS = 300;
/** The message as published (GET /auth-discovery, GET /mcp-discovery); walletProofMessage fills it. */
export const WALLET_PROOF_TEMPLATE = [WALLET_PROOF_TAG, ...['agentId', 'apiKeyId', 'tool', 'scope', 'chainId', 'walletAddress', 'resourceId', 'payloadHash', 'nonce', 'timestamp'].map((f) => `{${f}}`)].join(':');
/** The input fields every wallet proof travels in (elevation, registration, bind-wallet, recovery). */
export const WALLET_PROOF_INPUT_FIELDS = ['walletAddress', 'walletSignature', 'signatureTimestamp', 'proofNonce'];

export interface WalletProofFields {
  agentId: string;
  apiKeyId: string;
  /** The tool (MCP) or capability name the proof authorises. */
  tool: string;
  scope?: string | null;
  chainId?: number | null;
  /** Lowercased by the message builder. */
  walletAddress: string;
  resourceId?: string | null;
  /** The exact tool-intent payload; hashed with canonical JSON (null/absent hashes as '{}'). */
  payload: unknown;
  nonce: string;
  /** Unix seconds. */
  timestamp: number;
}

const opt = (v: string | number | null | undefined): string => (v === null || v === undefined || v === '' ? '-' : String(v));

/** svc-mcp-auth:{agentId}:{apiKeyId}:{tool}:{scope}:{chainId}:{walletAddress}:{resourceId}:{payloadHash}:{nonce}:{timestamp} */
export function walletProofMessage(f: WalletProofFields): string {
  return [
    WALLET_PROOF_TAG,
    f.agentId,
    f.apiKeyId,
    f.tool,
    opt(f.scope),
    opt(f.chainId),
    f.walletAddress.toLowerCase(),
    opt(f.resourceId),
    canonicalHash(f.payload),
    f.nonce,
    String(f.timestamp),
  ].join(':');
}
