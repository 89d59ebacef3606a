// After the transaction that ended some markets committed: their books leave memory (the next read rebuilds them, empty).
import type { EndedMarket } from '../../markets/ended-markets.ts';
import type { MarketBooks } from './books.ts';

export interface ForgetBooksDeps {
  books: MarketBooks;
}
export interface ForgetBooksParams {
  markets: readonly EndedMarket[];
}

export function forgetBooks(deps: ForgetBooksDeps, { markets }: ForgetBooksParams): void {
  for (const m of markets) if (m.ledgerMarketId !== null) deps.books.forget(m.ledgerMarketId);
}
