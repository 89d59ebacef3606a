// The market page's read-only extras, one chunk fetched with the first market opened: comments under the trades;
// the resolution timeline, holders and related markets beside them.
import type { Market } from '../api/types.ts';
import { MarketComments } from './market-comments.tsx';
import { MarketHolders } from './market-holders.tsx';
import { RelatedMarkets } from './market-related.tsx';
import { MarketResolution } from './market-resolution.tsx';

export function MarketMainExtras({ market }: { market: Market }) {
  return <MarketComments market={market} />;
}

export function MarketSideExtras({ market }: { market: Market }) {
  return (
    <>
      <MarketResolution market={market} />
      <MarketHolders market={market} />
      <RelatedMarkets market={market} />
    </>
  );
}
