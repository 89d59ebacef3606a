/**
 * GET /portfolio/positions (docs/markets.md "Positions"): one wallet's outcome shares in automated (LMSR) markets, as
 * the indexer projected its outcome-token transfers into `market_positions`, each with its market's current price and
 * state. Order-book holdings are ledger balances (GET /ledger/proof/{account}), not listed here.
 */
import { getAddress } from 'viem';
import { sql, type Kysely } from 'kysely';
import { problem } from '../../core/error-codes.ts';
import { WAD, wadToDecimal } from '../../core/markets/price.ts';
import type { MarketState } from '../../core/markets/states.ts';
import type { DB } from '../../db/schema.ts';

export interface WalletPositionsDeps {
  db: Kysely<DB>;
  /** The served chain: positions of markets on other chains are not this deployment's to report. */
  chainId: number;
  /** Decimals of a collateral token (lowercase address). */
  decimalsOf(token: string): number;
}

export interface WalletPositionsParams {
  /** Lowercase. */
  wallet: string;
  /** nextCursor of the previous page. */
  cursor?: string;
  limit: number;
}

export interface WalletPosition {
  chainId: number;
  marketAddress: string;
  question: string;
  state: MarketState;
  /** 0-based trade side. */
  outcomeIndex: number;
  outcomeLabel: string;
  /** Outcome shares, base units of the collateral (a winning share pays one collateral unit). */
  shares: string;
  /** The outcome's current price, an exact decimal in [0, 1]. */
  price: string;
  /** shares × price, rounded down, collateral base units: what the position is marked at, not what it would sell for. */
  markValue: string;
  collateral: { symbol: string; token: string; decimals: number };
}

export interface WalletPositions {
  wallet: string;
  positions: WalletPosition[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** A cursor is `<market id>.<outcome index>` of the last position of a page: the keyset (newest market first, then outcome). */
export const POSITIONS_CURSOR = /^[0-9]{1,19}\.[0-2]$/;

export async function walletPositions(deps: WalletPositionsDeps, p: WalletPositionsParams): Promise<WalletPositions> {
  let qb = deps.db
    .selectFrom('market_positions as p')
    .innerJoin('markets as m', (j) => j.onRef('m.chain_id', '=', 'p.chain_id').onRef('m.address', '=', 'p.market'))
    .select(['m.id', 'm.chain_id', 'm.address', 'm.question', 'm.state', 'm.outcomes', 'm.prices', 'm.collateral_symbol', 'm.collateral_token', 'p.outcome', sql<string>`p.shares::text`.as('shares')])
    .where('p.holder', '=', p.wallet.toLowerCase())
    .where('p.chain_id', '=', deps.chainId)
    .where('p.shares', '>', '0')
    .where('m.pricing_model', '=', 'automated');
  if (p.cursor !== undefined) {
    const [id, outcome] = parseCursor(p.cursor);
    qb = qb.where((eb) => eb.or([eb('m.id', '<', id), eb.and([eb('m.id', '=', id), eb('p.outcome', '>', outcome)])]));
  }
  const rows = await qb.orderBy('m.id', 'desc').orderBy('p.outcome', 'asc').limit(p.limit + 1).execute();
  const page = rows.slice(0, p.limit);
  const last = page.at(-1);
  return {
    wallet: getAddress(p.wallet),
    positions: page.map((r) => {
      const priceWad = BigInt(r.prices[r.outcome] ?? '0');
      return {
        chainId: r.chain_id,
        marketAddress: getAddress(r.address),
        question: r.question ?? `Unregistered market ${r.address}`,
        state: r.state as MarketState,
        outcomeIndex: r.outcome,
        outcomeLabel: r.outcomes[r.outcome] ?? `Outcome ${r.outcome + 1}`,
        shares: r.shares,
        price: wadToDecimal(priceWad),
        markValue: ((BigInt(r.shares) * priceWad) / WAD).toString(),
        collateral: { symbol: r.collateral_symbol, token: getAddress(r.collateral_token), decimals: deps.decimalsOf(r.collateral_token) },
      };
    }),
    hasMore: rows.length > p.limit,
    nextCursor: rows.length > p.limit && last ? `${last.id}.${last.outcome}` : null,
  };
}

function parseCursor(cursor: string): [string, number] {
  if (!POSITIONS_CURSOR.test(cursor)) {
    throw problem('INVALID_QUERY', 'cursor is not a nextCursor of this read: pass it back unchanged', { errors: [{ path: 'query.cursor', message: 'unknown cursor' }] });
  }
  const [id, outcome] = cursor.split('.');
  return [id!, Number(outcome)];
}
