// A wallet's reputation read (docs/reputation.md "Reads").
import { isIdentityKey } from '../../../core/reputation/subject.ts';
import type { ReputationDeps } from '../deps.ts';
import { currentSubjectKey, isKnownWallet } from '../subjects.ts';
import { viewOf, type ReputationView } from './view.ts';

/** A wallet's reputation (its subject's), or null for a wallet nothing is known of. */
export async function walletReputation(deps: Pick<ReputationDeps, 'db' | 'freeFillsPerMonth'>, wallet: string): Promise<ReputationView | null> {
  const key = await currentSubjectKey(deps.db, wallet);
  if (!isIdentityKey(key) && !(await isKnownWallet(deps.db, wallet))) return null;
  return viewOf(deps, key, wallet);
}
