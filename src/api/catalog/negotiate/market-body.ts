// A market row as the wire MarketRecord, with this deployment's collateral decimals and the handler's clock.
import type { MarketRecordT } from '../markets/shapes.ts';
import type { HandlerContext } from '../types.ts';
import { toMarketRecord, type MarketRow } from '../../../services/markets/records.ts';

export function marketBody(ctx: HandlerContext, row: MarketRow, volume24h?: string): MarketRecordT {
  const collateral = ctx.services.chain.collateral();
  return toMarketRecord(row, {
    now: ctx.clock.now(),
    decimalsOf: (token) => collateral.find((c) => c.token.toLowerCase() === token.toLowerCase())?.decimals ?? 18,
    volume24h,
  });
}
