/**
 * The wallet-proof message templates published in GET /auth-discovery. The server verifies
 * exactly these strings: an agent fills the placeholders {walletAddress} (lowercase), {nonce},
 * {chainId}, {timestamp} (Unix seconds), and the agent the proof is for — {agentName} (the name it
 * registers, last so it may hold ':') or {agentId} (the agent binding the wallet) — and signs the
 * result with EIP-191. Naming the agent means a signed proof that leaks cannot register or bind
 * another agent.
 */
export const WALLET_PROOF_TEMPLATES = {
  'agent-register': 'svc-agent-register:{walletAddress}:{nonce}:{chainId}:{timestamp}:{agentName}',
  'agent-bind-wallet': 'svc-agent-bind-wallet:{walletAddress}:{agentId}:{nonce}:{chainId}:{timestamp}',
  // Fixed by the spec: svc-api-key-recovery:<wallet-lowercase>:<nonce>.
  'agent-key-recovery': 'svc-api-key-recovery:{walletAddress}:{nonce}',
} as const;

export type WalletProofKind = keyof typeof WALLET_PROOF_TEMPLATES;

/** The agent a proof is for: the name it registers (agent-register) or its id (agent-bind-wallet). */
export interface ProofSubject {
  agentName?: string;
  agentId?: string;
}

export interface TemplateValues extends ProofSubject {
  walletAddress: string;
  nonce: string;
  chainId: number;
  /** Unix seconds. */
  timestamp: number;
}

export function fillTemplate(template: string, v: TemplateValues): string {
  const subject = (field: 'agentName' | 'agentId'): string => {
    const value = v[field];
    if (value === undefined) throw new TypeError(`the template ${template} needs {${field}}`);
    return value;
  };
  let text = template
    .replaceAll('{walletAddress}', v.walletAddress.toLowerCase())
    .replaceAll('{nonce}', v.nonce)
    .replaceAll('{chainId}', String(v.chainId))
    .replaceAll('{timestamp}', String(v.timestamp));
  if (text.includes('{agentId}')) text = text.replaceAll('{agentId}', subject('agentId'));
  // Last: a name may itself hold a brace pattern, and nothing is replaced after it.
  if (text.includes('{agentName}')) text = text.replace('{agentName}', () => subject('agentName'));
  return text;
}

export const walletProofText = (kind: WalletProofKind, v: TemplateValues): string => fillTemplate(WALLET_PROOF_TEMPLATES[kind], v);
