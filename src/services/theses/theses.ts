// Discovery theses (docs/theses.md), bound to the database and the chain's collateral as handlers reach them
// (ctx.services.theses).
import type { Kysely } from 'kysely';
import { COLLATERAL_DECIMALS } from '../../core/ledger/types.ts';
import type { DB } from '../../db/index.ts';
import type { ChainService } from '../chain/chain-service.ts';
import { PLAY_MONEY } from '../orderbook/markets.ts';
import { listTheses, type DiscoveryTheses, type ListThesesParams } from './list-theses.ts';

export type { DiscoveryTheses, ListThesesParams } from './list-theses.ts';

export interface ThesisService {
  /** The live, tradeable, listed markets of a chain worth a look, best first, each with its reasons in `locale`. */
  list(p: ListThesesParams): Promise<DiscoveryTheses>;
}

export function createThesisService(deps: { db: Kysely<DB>; chain: Pick<ChainService, 'collateral'> }): ThesisService {
  const decimalsOf = (token: string): number => {
    if (token.toLowerCase() === PLAY_MONEY.token) return COLLATERAL_DECIMALS;
    return deps.chain.collateral().find((c) => c.token.toLowerCase() === token.toLowerCase())?.decimals ?? 18;
  };
  return { list: (p) => listTheses({ db: deps.db, decimalsOf }, p) };
}
