// Where a signer finds each field of the wallet-proof elevation message (svc-mcp-auth) and what each elevated tool
// binds, published in skill.json, skill.md and GET /mcp-discovery so that signing needs no other document.
import { WALLET_PROOF_TEMPLATE, WALLET_PROOF_WINDOW_SECONDS } from '../../core/wallet-proof.ts';
import type { Capability } from '../catalog/types.ts';
import { toolNameOfCapability } from '../mcp/tools.ts';
import { jsonSchema } from './openapi.ts';

export interface PlaceholderSource {
  placeholder: string;
  source: string;
}

export interface ElevatedTool {
  tool: string;
  scope: string;
  /** Where the tool's {resourceId} comes from, or '-' when it binds none. */
  resourceId: string;
  /** walletAddress must be sent: the tool does not take the agent's bound wallet, or its body names the wallet too. */
  walletRequired: boolean;
}

const PROOF_ARGUMENTS = 'walletAddress, walletSignature, signatureTimestamp, proofNonce';

/** One line per placeholder of WALLET_PROOF_TEMPLATE, in template order. */
export function walletProofPlaceholders(chainId: number): PlaceholderSource[] {
  const sources: Record<string, string> = {
    agentId: 'id from GET /me (tool svc_get_me): the agent the calling key belongs to.',
    apiKeyId: 'apiKeyId from GET /me (tool svc_get_me): the id of the API key this session sends; a proof signed for another key is refused.',
    tool: 'the name of the tool being called, e.g. svc_claims_batch.',
    scope: "the tool's elevation scope (elevatedTools[].scope).",
    chainId: `the chain this service serves: ${chainId}, whatever chainId argument the call carries.`,
    walletAddress:
      'the signing wallet, lowercase. Send it as the walletAddress argument, or leave the argument out when the agent has a bound wallet (that wallet must then be the signer), unless elevatedTools[].walletRequired.',
    resourceId: "elevatedTools[].resourceId of the tool, or '-' when it binds none.",
    payloadHash: `SHA-256 (0x + 64 hex) of the canonical JSON (keys sorted recursively) of every argument of the call except ${PROOF_ARGUMENTS} and idempotencyKey; no such argument hashes as {}.`,
    nonce: `nonce from POST /api/auth/nonce (tool svc_auth_nonce): single use, valid ${WALLET_PROOF_WINDOW_SECONDS} s; send the same value as proofNonce.`,
    timestamp: `Unix seconds (not milliseconds) when signing, e.g. unixSeconds of GET /time, within ${WALLET_PROOF_WINDOW_SECONDS} s of the server clock; send the same value as signatureTimestamp.`,
  };
  return [...WALLET_PROOF_TEMPLATE.matchAll(/\{(\w+)\}/g)].map(([, placeholder]) => {
    const source = sources[placeholder!];
    if (source === undefined) throw new Error(`wallet-proof placeholder {${placeholder}} has no documented source`);
    return { placeholder: placeholder!, source };
  });
}

/** Every MCP tool that needs a wallet proof, with what its proof binds. */
export function elevatedTools(agent: readonly Capability[]): ElevatedTool[] {
  return agent.flatMap((c) => {
    const tool = toolNameOfCapability(c);
    if (!c.mcpElevation || !tool) return [];
    const walletRequired = c.mcpElevation.walletRequired === true || bodyRequires(c, 'walletAddress');
    return [{ tool, scope: c.mcpElevation.scope, resourceId: c.mcpElevation.resourceIdSource ?? '-', walletRequired }];
  });
}

const bodyRequires = (c: Capability, field: string): boolean =>
  c.input?.body !== undefined && ((jsonSchema(c.input.body, 'input') as { required?: string[] }).required ?? []).includes(field);
