// The markets lane's events the indexer reads, as viem decodes them.
import { getAddress, parseAbi, type Log } from 'viem';

export const LANE_EVENTS = parseAbi([
  'event MarketCreated(address indexed market, address indexed creator, address indexed collateral, uint8 outcomeCount, bytes32 questionHash, uint64 closeTime, uint32 resolutionWindow, uint256 liquidity, uint256 bond, uint256 subsidy, uint16 protocolFeeBps, uint16 creatorFeeBps)',
  'event Trade(address indexed trader, address indexed recipient, uint8 outcome, bool isBuy, uint256 shares, uint256 cost, uint256 protocolFee, uint256 creatorFee, uint256[] pricesAfter)',
  'event CreatorFeesCollected(address indexed creator, uint256 amount)',
  'event Redeemed(address indexed holder, uint8 finalOutcome, uint256 shares, uint256 payout)',
  'event BondReturned(address indexed creator, uint256 amount)',
  'event BondSlashed(address indexed keeper, uint256 keeperCut, uint256 voterPool, uint256 treasuryCut)',
  'event VoterRewardsPaid(uint256 winners, uint256 perVoter, uint256 remainder)',
  'event ResidualSwept(address indexed creator, uint256 amount)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
]);

export type LaneLog = Log<bigint, number, false, undefined, true, typeof LANE_EVENTS>;

/** One kind of lane log. */
export type LaneLogOf<N extends LaneLog['eventName']> = Extract<LaneLog, { eventName: N }>;

/** Decodes an outcome-token id: (uint160(market) << 8) | outcomeIndex (docs/contracts.md). */
export function decodeOutcomeId(id: bigint): { market: string; outcome: number } {
  return { market: getAddress(`0x${(id >> 8n).toString(16).padStart(40, '0')}`).toLowerCase(), outcome: Number(id & 0xffn) };
}
