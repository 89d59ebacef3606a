/**
 * The one form of an ECDSA signature that contracts accept (OpenZeppelin's ECDSA, behind SignatureChecker): v 27 or
 * 28 and s in the lower half of the curve order. Wallets also produce v 0/1 (Ledger) or a high s, which viem's
 * recovery accepts and a contract refuses: a signature kept for a later transaction is put in this form first. Pure.
 */
import type { Hex } from 'viem';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The canonical form of a 65-byte signature (same signer, same digest); anything else (a contract wallet's bytes) unchanged. */
export function canonicalSignature(signature: string): Hex {
  const sig = signature.toLowerCase();
  if (!/^0x[0-9a-f]{130}$/.test(sig)) return sig as Hex;
  const r = sig.slice(2, 66);
  let s = BigInt(`0x${sig.slice(66, 130)}`);
  let v = Number.parseInt(sig.slice(130, 132), 16);
  if (v === 0 || v === 1) v += 27;
  if (v !== 27 && v !== 28) return sig as Hex; // not a recoverable ECDSA signature: left for the check to refuse
  if (s > N / 2n) {
    s = N - s;
    v = v === 27 ? 28 : 27;
  }
  return `0x${r}${s.toString(16).padStart(64, '0')}${v.toString(16)}` as Hex;
}
