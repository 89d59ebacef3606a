// The operator's switches of the release kept in the database (docs/participation.md "Operator"): the quarantine of
// the route, a kv_settings row, so that every process sees it.
import type { ParticipationDeps } from './deps.ts';

const QUARANTINE = 'participation.quarantine';

export async function isQuarantined(deps: Pick<ParticipationDeps, 'db'>): Promise<boolean> {
  const row = await deps.db.selectFrom('kv_settings').select('value').where('key', '=', QUARANTINE).executeTakeFirst();
  return (row?.value as { on?: boolean } | undefined)?.on === true;
}

export async function setQuarantine(deps: Pick<ParticipationDeps, 'db' | 'clock'>, on: boolean): Promise<void> {
  const value = JSON.stringify({ on });
  await deps.db
    .insertInto('kv_settings')
    .values({ key: QUARANTINE, value, updated_at: deps.clock.now() })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: deps.clock.now() }))
    .execute();
}
