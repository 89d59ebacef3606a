/**
 * Wallet-proof verification, the one module REST and MCP both call for elevated actions:
 * the signed message binds agent, key, tool, scope, chain, wallet, resource and payload; the
 * signature must recover to the wallet (EIP-191); the timestamp must be inside the 300 s window;
 * the nonce is consumed only when all of that holds, so a failed attempt does not burn it. A template proof's nonce
 * is spent in the transaction of the write it admits (CheckedProof.consume).
 */
import { recoverMessageAddress, type Hex } from 'viem';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { walletProofText, type ProofSubject, type WalletProofKind } from '../../core/auth-templates.ts';
import { walletProofMessage, WALLET_PROOF_WINDOW_SECONDS, type WalletProofFields } from '../../core/wallet-proof.ts';
import type { Executor } from '../../db/index.ts';
import type { NonceRefusal, NonceService } from './nonces.ts';

/** Clock skew tolerated for a timestamp slightly ahead of ours. */
const FUTURE_SKEW_SECONDS = 30;

export interface WalletProofInput {
  walletAddress: string;
  walletSignature: string;
  /** Unix seconds. */
  signatureTimestamp: number;
  proofNonce: string;
}

export type ProofContext = Omit<WalletProofFields, 'walletAddress' | 'nonce' | 'timestamp'>;

/** A template proof whose window, signature and nonce hold; its nonce is spent by `consume`. */
export interface CheckedProof {
  /** Lowercased. */
  wallet: string;
  /**
   * Spends the nonce inside `trx`, the transaction of what the proof admits, so a write that rolls back leaves the
   * proof usable for its retry; throws WALLET_PROOF_INVALID (NONCE_USED…) if it was spent meanwhile.
   */
  consume(trx: Executor): Promise<void>;
}

export interface WalletProofVerifier {
  /** Elevation proof: verifies and consumes; returns the lowercased wallet, or throws WALLET_PROOF_INVALID with a reason. */
  verify(context: ProofContext, proof: WalletProofInput): Promise<string>;
  /**
   * A proof over one of the published templates (GET /auth-discovery: registration, bind-wallet, key recovery);
   * `subject` names the agent the template binds (agent-register, agent-bind-wallet). Throws WALLET_PROOF_INVALID
   * with a reason; the nonce is spent only by the returned proof's `consume`.
   */
  checkTemplate(kind: WalletProofKind, proof: WalletProofInput, subject?: ProofSubject): Promise<CheckedProof>;
}

const refuse = (reason: string, detail: string) => problem('WALLET_PROOF_INVALID', detail, { extensions: { reason } });

export function createWalletProofVerifier(deps: { nonces: NonceService; clock: Clock; chainId: number }): WalletProofVerifier {
  // Window, then signature; the nonce is spent only after both hold, so a failed attempt never burns it.
  const check = async (message: string, proof: WalletProofInput): Promise<string> => {
    const wallet = proof.walletAddress.toLowerCase();
    const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
    const age = nowSeconds - proof.signatureTimestamp;
    if (age > WALLET_PROOF_WINDOW_SECONDS || age < -FUTURE_SKEW_SECONDS) {
      throw refuse('TIMESTAMP_OUT_OF_WINDOW', `signatureTimestamp must be Unix seconds within ${WALLET_PROOF_WINDOW_SECONDS} s of the server time (GET /time unixSeconds; not milliseconds)`);
    }
    let signer: string;
    try {
      signer = (await recoverMessageAddress({ message, signature: proof.walletSignature as Hex })).toLowerCase();
    } catch {
      throw refuse('SIGNATURE_MALFORMED', 'walletSignature is not a valid EIP-191 signature');
    }
    if (signer !== wallet) {
      throw refuse('SIGNATURE_MISMATCH', 'the signature does not match walletAddress over the expected message (check every field of the template)');
    }
    return wallet;
  };

  const consume = async (proof: WalletProofInput, usedFor: string, trx?: Executor): Promise<void> => {
    const refusal = await deps.nonces.consume(proof.proofNonce, 'auth', usedFor, trx);
    if (refusal) throw nonceRefused(refusal);
  };

  return {
    async verify(context, proof) {
      const wallet = await check(walletProofMessage({ ...context, walletAddress: proof.walletAddress, nonce: proof.proofNonce, timestamp: proof.signatureTimestamp }), proof);
      await consume(proof, `wallet-proof:${context.tool}`);
      return wallet;
    },
    async checkTemplate(kind, proof, subject = {}) {
      const message = walletProofText(kind, { ...subject, walletAddress: proof.walletAddress, nonce: proof.proofNonce, chainId: deps.chainId, timestamp: proof.signatureTimestamp });
      const wallet = await check(message, proof);
      // Refused now when it is already spent (before any budget is charged for it); `consume` decides.
      const refusal = await deps.nonces.refusal(proof.proofNonce, 'auth');
      if (refusal) throw nonceRefused(refusal);
      return { wallet, consume: (trx) => consume(proof, kind, trx) };
    },
  };
}

const nonceRefused = (refusal: NonceRefusal) =>
  refuse(
    refusal,
    refusal === 'NONCE_USED' ? 'proofNonce was already used; get a fresh one from POST /api/auth/nonce' : 'proofNonce is unknown or expired; get a fresh one from POST /api/auth/nonce',
  );
