// Several wallets' reputations in one read (docs/reputation.md "Reads").
import type { ReputationDeps } from '../deps.ts';
import type { ReputationView } from './view.ts';
import { walletReputation } from './wallet-reputation.ts';

/** Each wallet's reputation, in the order asked (null for a wallet nothing is known of). */
export async function batchReputation(deps: Pick<ReputationDeps, 'db' | 'freeFillsPerMonth'>, wallets: readonly string[]): Promise<{ walletAddress: string; reputation: ReputationView | null }[]> {
  const out: { walletAddress: string; reputation: ReputationView | null }[] = [];
  const seen = new Map<string, ReputationView | null>();
  for (const w of wallets) {
    const lower = w.toLowerCase();
    if (!seen.has(lower)) seen.set(lower, await walletReputation(deps, lower));
    out.push({ walletAddress: lower, reputation: seen.get(lower)! });
  }
  return out;
}
