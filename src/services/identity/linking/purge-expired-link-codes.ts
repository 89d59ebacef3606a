/** Upkeep: link codes a day past their expiry are deleted. */
import type { LinkingDeps } from './shared.ts';

/** Deletes link codes expired for more than a day (until then a late use answers LINK_CODE_EXPIRED). */
export async function purgeExpiredLinkCodes(deps: LinkingDeps): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - 86_400_000);
  const r = await deps.db.deleteFrom('identity_link_codes').where('expires_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}
