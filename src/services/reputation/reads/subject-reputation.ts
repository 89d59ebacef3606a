// A subject's reputation read by its published id (docs/reputation.md "Reads").
import { subjectKeyFromId } from '../../../core/reputation/subject.ts';
import type { ReputationDeps } from '../deps.ts';
import { isLiveSubject } from '../subjects.ts';
import { viewOf, type ReputationView } from './view.ts';

/** A subject's reputation by its published id, or null for an id not issued here or a subject that ended. */
export async function subjectReputation(deps: Pick<ReputationDeps, 'db' | 'freeFillsPerMonth'>, subjectId: string): Promise<ReputationView | null> {
  const key = subjectKeyFromId(subjectId);
  if (!key || !(await isLiveSubject(deps.db, key))) return null;
  return viewOf(deps, key, null);
}
