// The play-money balance checked in the browser (docs/ledger-merkle.md), its own chunk: each leaf rebuilt from the
// account, asset and balance, each proof folded to a root, and that root compared with ledgerRoot() as the chain answers
// it through the person's own wallet (eth_call on the injected provider), so the check trusts svc for nothing.
import type { Hex } from 'viem';
import { LEDGER_ROOT_SELECTOR, ledgerLeaf, rootOf } from './ledger-merkle.ts';

export interface LedgerProof {
  account: string;
  chainId: number;
  contract: string;
  batchNonce: number;
  root: Hex;
  balances: { assetId: string; asset: { kind: 'collateral'; decimals: number } | { kind: 'outcome'; marketId: string; side: 0 | 1 }; balance: string; leaf: Hex; proof: Hex[] }[];
}

export type ProofCheck =
  | { status: 'verified'; root: Hex; leaves: number }
  /** A leaf or a proof does not lead to the root svc answered. */
  | { status: 'badProof'; assetId: string }
  /** Every proof leads to svc's root, but the chain holds another (svc's is stale or false). */
  | { status: 'rootMismatch'; served: Hex; chain: Hex }
  | { status: 'noWallet' }
  | { status: 'wrongChain'; walletChainId: number };

/** Checks every balance of the answer, then asks the chain for ledgerRoot() through the injected wallet. */
export async function checkLedgerProof(p: LedgerProof): Promise<ProofCheck> {
  for (const b of p.balances) {
    const leaf = ledgerLeaf(p.account, BigInt(b.assetId), BigInt(b.balance));
    if (leaf !== b.leaf.toLowerCase() || rootOf(leaf, b.proof).toLowerCase() !== p.root.toLowerCase()) return { status: 'badProof', assetId: b.assetId };
  }
  const provider = window.ethereum;
  if (!provider) return { status: 'noWallet' };
  const walletChainId = Number(await provider.request({ method: 'eth_chainId' }));
  if (walletChainId !== p.chainId) return { status: 'wrongChain', walletChainId };
  const chainRoot = ((await provider.request({ method: 'eth_call', params: [{ to: p.contract as Hex, data: LEDGER_ROOT_SELECTOR }, 'latest'] })) as Hex).toLowerCase() as Hex;
  if (chainRoot !== p.root.toLowerCase()) return { status: 'rootMismatch', served: p.root, chain: chainRoot };
  return { status: 'verified', root: chainRoot, leaves: p.balances.length };
}
