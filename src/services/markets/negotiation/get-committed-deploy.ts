import type { Kysely } from 'kysely';
import type { Principal } from '../../../core/principal.ts';
import type { DB } from '../../../db/schema.ts';
import type { MarketRow } from '../records.ts';
import type { NegotiationDeps, NegotiationRow } from './deps.ts';
import { getNegotiation } from './get-negotiation.ts';
import type { CommittedDeploy } from './record-deployment.ts';

/** The agent's deployed negotiation with the market it registered, as they are now: what a retried commit-deploy answers. */
export async function getCommittedDeploy(deps: Pick<NegotiationDeps, 'db'>, principal: Principal, id: string): Promise<CommittedDeploy> {
  const row = await getNegotiation(deps, principal, id);
  return { negotiation: row, market: await deployedMarketOf(deps.db, row) };
}

/** The market a deployed negotiation registered (markets rows are never deleted). */
export async function deployedMarketOf(db: Kysely<DB>, row: NegotiationRow): Promise<MarketRow> {
  if (row.market_address === null) throw new Error(`negotiation ${row.id} is ${row.status}: it has registered no market`);
  return db.selectFrom('markets').selectAll().where('chain_id', '=', row.chain_id).where('address', '=', row.market_address).executeTakeFirstOrThrow();
}
