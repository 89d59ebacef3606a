/**
 * A play-money ORDERBOOK market's creation on chain: the factory's MarketCreated log gives the market
 * address and the uint64 marketId the ledger's asset ids use. Commit-deploy (from the receipt) and the
 * indexer (from the log) read it here and register it with the one registerMarket of both lanes
 * (markets/register-market.ts); the text comes from the negotiation of the same creator and question
 * hash, or is a placeholder for a creation sent outside the create loop (never listed), as for automated
 * markets. docs/orderbook.md "Markets".
 */
import { parseAbiItem, parseEventLogs, type TransactionReceipt } from 'viem';
import { COLLATERAL_DECIMALS } from '../../core/ledger/types.ts';

/** Collateral of every order-book market: the ledger's play money (asset 0); it has no token address. */
export const PLAY_MONEY = { symbol: 'PLAY', token: '0x0000000000000000000000000000000000000000', decimals: COLLATERAL_DECIMALS } as const;

/** IOrderBookMarketFactory.MarketCreated (contracts/orderbook/interfaces/IOrderBookMarketFactory.sol). */
export const ORDERBOOK_MARKET_CREATED = parseAbiItem(
  'event MarketCreated(address indexed market, address indexed creator, uint64 indexed marketId, bytes32 questionHash, uint64 closeTime, uint32 resolutionWindowSeconds)',
);

/** One MarketCreated log of the order-book factory, with its block. */
export interface OrderBookCreation {
  pricingModel: 'ORDERBOOK';
  chainId: number;
  factory: string;
  address: string;
  creator: string;
  marketId: bigint;
  questionHash: string;
  /** Unix seconds, as the log carries it. */
  closeTime: bigint;
  resolutionWindowSeconds: number;
  blockNumber: bigint;
  blockHash: string;
  txHash: string;
  blockTime: Date;
}

/** What a decoded MarketCreated log of the order-book factory carries (viem's getLogs / parseEventLogs). */
export interface OrderBookCreatedLog {
  address: string;
  blockNumber: bigint;
  blockHash: string;
  transactionHash: string;
  args: { market: string; creator: string; marketId: bigint; questionHash: string; closeTime: bigint; resolutionWindowSeconds: number };
}

export function orderBookCreationOf(log: OrderBookCreatedLog, at: { chainId: number; blockTime: Date }): OrderBookCreation {
  const a = log.args;
  return {
    pricingModel: 'ORDERBOOK',
    chainId: at.chainId,
    factory: log.address.toLowerCase(),
    address: a.market.toLowerCase(),
    creator: a.creator.toLowerCase(),
    marketId: a.marketId,
    questionHash: a.questionHash.toLowerCase(),
    closeTime: a.closeTime,
    resolutionWindowSeconds: a.resolutionWindowSeconds,
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    txHash: log.transactionHash,
    blockTime: at.blockTime,
  };
}

/** The MarketCreated logs `factory` wrote in a mined receipt (commit-deploy). */
export function orderBookCreationsIn(receipt: TransactionReceipt, at: { chainId: number; factory: string; blockTime: Date }): OrderBookCreation[] {
  if (receipt.status !== 'success') return [];
  const factory = at.factory.toLowerCase();
  return parseEventLogs({ abi: [ORDERBOOK_MARKET_CREATED], logs: receipt.logs, eventName: 'MarketCreated' })
    .filter((l) => l.address.toLowerCase() === factory)
    .map((l) => orderBookCreationOf(l, at));
}
