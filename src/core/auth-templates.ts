/**
 * The wallet-proof message templates published in GET /auth-discovery. The server verifies
 * exactly these strings: an agent fills the placeholders {walletAddress} (lowercase), {nonce},
 * {chainId} and {timestamp} (Unix seconds) and signs the result with EIP-191.
 */
export const WALLET_PROOF_TEMPLATES = {
  'agent-register': 'svc-agent-register:{walletAddress}:{nonce}:{chainId}:{timestamp}',
  'agent-bind-wallet': 'svc-agent-bind-wallet:{walletAddress}:{nonce}:{chainId}:{timestamp}',
  // Fixed by the spec: svc-api-key-recovery:<wallet-lowercase>:<nonce>.
  'agent-key-recovery': 'svc-api-key-recovery:{walletAddress}:{nonce}',
} as const;

export type WalletProofKind = keyof typeof WALLET_PROOF_TEMPLATES;

export interface TemplateValues {
  walletAddress: string;
  nonce: string;
  chainId: number;
  /** Unix seconds. */
  timestamp: number;
}

export function fillTemplate(template: string, v: TemplateValues): string {
  return template
    .replaceAll('{walletAddress}', v.walletAddress.toLowerCase())
    .replaceAll('{nonce}', v.nonce)
    .replaceAll('{chainId}', String(v.chainId))
    .replaceAll('{timestamp}', String(v.timestamp));
}

export const walletProofText = (kind: WalletProofKind, v: TemplateValues): string => fillTemplate(WALLET_PROOF_TEMPLATES[kind], v);
