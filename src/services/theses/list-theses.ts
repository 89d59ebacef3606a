// GET /api/v1/discovery/theses: the facts of the chain's live markets, the theses chosen from them, written in a locale.
import type { Kysely } from 'kysely';
import { chooseTheses } from '../../core/theses/choose.ts';
import type { ThesisLocale } from '../../core/theses/locales.ts';
import { presentTheses, type DiscoveryTheses } from '../../core/theses/present.ts';
import type { DB } from '../../db/index.ts';
import { readThesisFacts } from './read-facts.ts';

export interface ThesisDeps {
  db: Kysely<DB>;
  /** Decimals of a collateral token (lowercase address); the ledger's play money included. */
  decimalsOf(token: string): number;
}

export interface ListThesesParams {
  chainId: number;
  locale: ThesisLocale;
  now: Date;
}

export type { DiscoveryTheses };

export async function listTheses(deps: ThesisDeps, p: ListThesesParams): Promise<DiscoveryTheses> {
  const facts = await readThesisFacts(deps.db, { chainId: p.chainId, now: p.now, decimalsOf: deps.decimalsOf });
  return presentTheses(chooseTheses(facts.markets, facts.related, p.now), p);
}
