// Helpers every market-read handler shares: MarketRecord rendering with the chain's collateral decimals,
// the path-address check (400 INVALID_ID), collateral resolution and the market lookup.
import { problem } from '../../../core/error-codes.ts';
import { marketKey } from '../../../services/markets/listing/shared.ts';
import { toMarketRecord, type MarketRow } from '../../../services/markets/records.ts';
import { matchCollateral } from '../../../services/chain/chain-service.ts';
import type { HandlerContext } from '../types.ts';
import { COLLATERAL_DECIMALS } from '../../../core/ledger/types.ts';
import { PLAY_MONEY } from '../../../services/orderbook/markets.ts';
import type { MarketRecordT } from '../../../wire/markets.ts';

const ADDRESS = /^0x[a-fA-F0-9]{40}$/;

/** MarketRecords of `rows` as of now, with each market's 24-hour volume when known. */
export function toRecords(ctx: HandlerContext, rows: readonly MarketRow[], volume24h: ReadonlyMap<string, string> = new Map()): MarketRecordT[] {
  // Order-book markets' collateral is the ledger's play money (no token, 6 decimals).
  const decimals = new Map<string, number>([[PLAY_MONEY.token, COLLATERAL_DECIMALS], ...ctx.services.chain.collateral().map((c) => [c.token.toLowerCase(), c.decimals] as const)]);
  const now = ctx.clock.now();
  return rows.map((row) =>
    toMarketRecord(row, { now, decimalsOf: (token) => decimals.get(token.toLowerCase()) ?? 18, volume24h: volume24h.get(marketKey(row.chain_id, row.address)) ?? '0' }),
  );
}

/** `value` as a market address, or 400 INVALID_ID naming `path`. */
export function requireMarketAddress(value: string, path: string): string {
  if (!ADDRESS.test(value)) {
    throw problem('INVALID_ID', `'${value}' is not a market address (0x + 40 hex digits)`, { errors: [{ path, message: 'must be an EVM address' }] });
  }
  return value.toLowerCase();
}

/** The market a per-market read is about: its address checked (INVALID_ID), its chain served (UNSUPPORTED_CHAIN), then found (MARKET_NOT_FOUND). */
export async function marketFor(ctx: HandlerContext, address: string, chainId: number | undefined, path = 'params.address'): Promise<MarketRow> {
  const checked = requireMarketAddress(address, path);
  ctx.services.chain.requireServed(chainId, 'UNSUPPORTED_CHAIN');
  return ctx.services.marketReads.find({ address: checked, chainId });
}

/** Collateral token addresses for a symbol or token address; an unknown one is 400 INVALID_QUERY. */
export function collateralTokens(ctx: HandlerContext, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const tokens = matchCollateral(ctx.services.chain.collateral(), value).map((c) => c.token.toLowerCase());
  if (tokens.length === 0) {
    throw problem('INVALID_QUERY', `collateral '${value}' is not a reviewed collateral symbol or token address`, {
      errors: [{ path: 'query.collateral', message: 'unknown collateral' }],
    });
  }
  return tokens;
}

const RANGE_MS = { TODAY: 86_400_000, WEEK: 7 * 86_400_000, MONTH: 30 * 86_400_000 } as const;

/** The end of a dateRange window (closing within 24 h, 7 days or 30 days of now). */
export const closesBefore = (ctx: HandlerContext, range: keyof typeof RANGE_MS | undefined): Date | undefined =>
  range === undefined ? undefined : new Date(ctx.clock.now().getTime() + RANGE_MS[range]);

/** probMin ≤ probMax, or 400 INVALID_QUERY. */
export function checkProbBand(probMin: number | undefined, probMax: number | undefined): void {
  if (probMin !== undefined && probMax !== undefined && probMin > probMax) {
    throw problem('INVALID_QUERY', `probMin (${probMin}) is above probMax (${probMax})`, { errors: [{ path: 'query.probMin', message: 'must not exceed probMax' }] });
  }
}

/**
 * The second of the service clock a list page is rendered for: part of its cache key, so a page (whose records depend
 * on now: closing windows, derived states) is never answered for another second of the clock than its own — with the
 * injected clock of a test as with the wall clock.
 */
export const listingSecond = (ctx: HandlerContext): number => Math.floor(ctx.clock.now().getTime() / 1000);
