// An automated (LMSR) market's creation: the factory's MarketCreated log, its block, and the market's state read
// at that block. registerMarket (register-market.ts) turns it into a markets row.

export interface CreatedMarket {
  /** The lane; absent means automated (an order-book creation is orderbook/markets.ts OrderBookCreation). */
  pricingModel?: 'automated';
  chainId: number;
  address: string;
  factory: string;
  creator: string;
  collateralToken: string;
  collateralSymbol: string;
  outcomeCount: number;
  questionHash: string;
  closeTime: Date;
  resolutionWindowSeconds: number;
  liquidity: bigint;
  bond: bigint;
  subsidy: bigint;
  protocolFeeBps: number;
  creatorFeeBps: number;
  blockNumber: bigint;
  blockHash: string;
  txHash: string;
  blockTime: Date;
  /** Prices and outstanding shares right after creation (read from the chain at the creation block). */
  prices: string[];
  outstanding: string[];
}

/** The args of a factory's MarketCreated log (viem-decoded). */
export interface MarketCreatedArgs {
  market: string;
  creator: string;
  collateral: string;
  outcomeCount: number;
  questionHash: string;
  closeTime: bigint;
  resolutionWindow: number;
  liquidity: bigint;
  bond: bigint;
  subsidy: bigint;
  protocolFeeBps: number;
  creatorFeeBps: number;
}

/** A CreatedMarket from a MarketCreated log, its block and the market's state read at that block. */
export function createdMarketOf(
  a: MarketCreatedArgs,
  at: { chainId: number; factory: string; collateralSymbol: string; blockNumber: bigint; blockHash: string; txHash: string; blockTime: Date },
  state: { prices: string[]; outstanding: string[] },
): CreatedMarket {
  return {
    ...at,
    address: a.market,
    creator: a.creator,
    collateralToken: a.collateral,
    outcomeCount: a.outcomeCount,
    questionHash: a.questionHash,
    closeTime: new Date(Number(a.closeTime) * 1000),
    resolutionWindowSeconds: a.resolutionWindow,
    liquidity: a.liquidity,
    bond: a.bond,
    subsidy: a.subsidy,
    protocolFeeBps: a.protocolFeeBps,
    creatorFeeBps: a.creatorFeeBps,
    prices: state.prices,
    outstanding: state.outstanding,
  };
}
