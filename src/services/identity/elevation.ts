/**
 * Wallet-proof elevation of one MCP tool call (spec "Wallet-proof elevation"): the proof binds
 * agent, key, tool, scope, chain, wallet, resource and the tool-intent payload, and is verified by
 * the one wallet-proof module. With a bound wallet the caller may omit walletAddress: the agent's
 * bound wallet is the one that must have signed.
 */
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { problem } from '../../core/error-codes.ts';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../core/principal.ts';
import { requireAgent } from './agents.ts';
import type { WalletProofVerifier } from './wallet-proof.ts';

export const WalletProofArgumentsSchema = z.strictObject({
  walletAddress: z.string().regex(/^0x[a-fA-F0-9]{40}$/, 'an EvmAddress').optional(),
  walletSignature: z.string().min(1),
  signatureTimestamp: z.number().int().positive(),
  proofNonce: z.string().min(1).max(256),
});
export type WalletProofArguments = z.input<typeof WalletProofArgumentsSchema>;

export interface ElevationRequest {
  principal: Principal;
  tool: string;
  scope: string;
  chainId: number;
  resourceId: string | null;
  /** The tool-intent payload (arguments without the proof fields and idempotencyKey). */
  payload: unknown;
}

export interface ElevationService {
  /** Verifies the proof (consuming its nonce) and returns the proven wallet, lowercase. */
  prove(request: ElevationRequest, proof: WalletProofArguments): Promise<string>;
}

export function createElevationService(deps: { db: Kysely<DB>; walletProofs: WalletProofVerifier }): ElevationService {
  return {
    async prove(request, proof) {
      let walletAddress = proof.walletAddress;
      if (walletAddress === undefined) {
        const agent = await requireAgent(deps.db, request.principal);
        if (!agent.wallet_address) {
          throw problem('WALLET_PROOF_INVALID', 'walletAddress is required: this agent has no bound wallet to default to', {
            extensions: { reason: 'WALLET_ADDRESS_REQUIRED' },
          });
        }
        walletAddress = agent.wallet_address;
      }
      return deps.walletProofs.verify(
        {
          agentId: request.principal.agentId ?? '-',
          apiKeyId: request.principal.keyId,
          tool: request.tool,
          scope: request.scope,
          chainId: request.chainId,
          resourceId: request.resourceId,
          payload: request.payload,
        },
        { walletAddress, walletSignature: proof.walletSignature, signatureTimestamp: proof.signatureTimestamp, proofNonce: proof.proofNonce },
      );
    },
  };
}
