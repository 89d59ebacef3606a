/**
 * The trade loop: POST /trade/quote reads the exact cost or proceeds from the market (eth_call of quoteBuy /
 * quoteSell at the latest block); POST /trade/prepare builds the router transaction the trader's wallet signs,
 * after checking that the market is tradeable and that the approvals and balance the router needs are in place.
 * A missing approval answers 409 APPROVAL_REQUIRED carrying the same recipe GET /discover/contracts publishes.
 */
import { BaseError, ContractFunctionRevertedError, encodeFunctionData, erc20Abi, getAddress, type Address, type Hex } from 'viem';
import type { Kysely } from 'kysely';
import { abiWithAllErrors, loadArtifact } from '../../chain/artifacts.ts';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { isTradeable, type Controls, type MarketState } from '../../core/markets/states.ts';
import { WAD, wadToDecimal } from '../../core/markets/price.ts';
import { TRADE_DEFAULTS } from '../../core/trade-defaults.ts';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../core/principal.ts';
import type { ChainService } from '../chain/chain-service.ts';
import { requireAgent } from '../identity/agents.ts';
import { collateralApproval, outcomeTokenApproval } from './approvals.ts';
import { findMarket } from './reads/find-market.ts';
import type { MarketRow } from './records.ts';

/** How long a quote is good for: after it, re-quote (prices move with every trade). */
export const QUOTE_TTL_MS = 15_000;
/** Default deadline of a prepared intent. */
export const INTENT_DEADLINE_SECONDS = 600;

export interface TradeRequest {
  market: string;
  /** 0-based trade side. */
  outcome: number;
  side: 'buy' | 'sell';
  /** Shares, collateral base units (one share pays one base unit if its outcome wins). */
  shares: string;
  slippageBps?: number;
}

export interface Quote {
  market: Address;
  chainId: number;
  outcome: number;
  side: 'buy' | 'sell';
  shares: string;
  /** Buy: total to pay, fees included. Sell: proceeds after fees. Collateral base units. */
  amount: string;
  /** LMSR cost (buy) or gross proceeds (sell), fees excluded. */
  cost: string;
  fees: { protocol: string; creator: string; total: string };
  averagePrice: string;
  marginalPriceBefore: string;
  marginalPriceAfter: string;
  pricesAfter: string[];
  slippageBps: number;
  /** Buy: the most to pay (maxCost). Sell: the least to accept (minProceeds). */
  limit: string;
  quotedAtBlock: string;
  quotedAt: string;
  expiresAt: string;
  recommendedRefreshMs: number;
}

export interface PreparedTrade {
  quote: Quote;
  intent: { market: Address; outcome: number; isBuy: boolean; shares: string; limit: string; deadline: string; recipient: Address };
  transaction: { chainId: number; from: Address; to: Address; data: Hex; value: string };
}

export interface TradingService {
  quote(req: TradeRequest): Promise<Quote>;
  prepare(principal: Principal, req: TradeRequest & { limit?: string; deadlineSeconds?: number; recipient?: string }): Promise<PreparedTrade>;
}


export function createTradingService(deps: { db: Kysely<DB>; clock: Clock; chain: ChainService }): TradingService {
  const { db, clock, chain } = deps;
  const marketAbi = abiWithAllErrors('LmsrMarket');
  const routerAbi = loadArtifact('TradeRouter').abi;
  const outcomeAbi = loadArtifact('OutcomeToken').abi;

  async function tradeableMarket(address: string, outcome: number): Promise<MarketRow> {
    const row = await findMarket(db, { address, chainId: chain.chainId });
    if (row.pricing_model !== 'automated') throw problem('MARKET_NOT_TRADEABLE', `market ${address} is an order-book market: use the order-book loop`);
    if (outcome >= row.outcome_count) throw problem('INVALID_PAYLOAD', `outcome ${outcome} does not exist: this market has outcomes 0..${row.outcome_count - 1}`, { errors: [{ path: 'body.outcome', message: 'no such outcome' }] });
    const controls = row.controls as unknown as Controls;
    if (!isTradeable(row.state as MarketState, controls, row.close_time, clock.now())) {
      throw problem('MARKET_NOT_TRADEABLE', `market ${address} is not tradeable (state ${row.state}, closes ${row.close_time.toISOString()}, interaction ${controls.interaction}, policy ${controls.policy})`, {
        extensions: { state: row.state, controls, isTradeable: false },
      });
    }
    return row;
  }

  /** The quote for a market already checked tradeable (prepare reuses its row). */
  async function quoteFor(row: MarketRow, req: TradeRequest): Promise<Quote> {
    const shares = BigInt(req.shares);
    const slippageBps = req.slippageBps ?? TRADE_DEFAULTS.slippageBpsDefault;
    const market = getAddress(row.address);
    const block = await chain.guard(() => chain.client.getBlock({ blockTag: 'latest' }));
    const read = async <T>(functionName: string, args: readonly unknown[]): Promise<T> => {
      try {
        return (await chain.client.readContract({ address: market, abi: marketAbi, functionName, args: args as unknown[], blockNumber: block.number })) as T;
      } catch (err) {
        const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
        if (reverted instanceof ContractFunctionRevertedError) {
          const name = reverted.data?.errorName ?? 'unknown';
          throw problem(name === 'MarketClosed' ? 'MARKET_NOT_TRADEABLE' : 'TRADE_REJECTED', `the market refuses this trade: ${name}${reasonOf(name)}`, { extensions: { contractError: name } });
        }
        return chain.guard(() => Promise.reject(err));
      }
    };
    const isBuy = req.side === 'buy';
    const [before, [amount, protocolFee, creatorFee, pricesAfter]] = await Promise.all([
      read<readonly bigint[]>('prices', []),
      read<readonly [bigint, bigint, bigint, readonly bigint[]]>(isBuy ? 'quoteBuy' : 'quoteSell', [req.outcome, shares]),
    ]);
    const fees = protocolFee + creatorFee;
    const cost = isBuy ? amount - fees : amount + fees;
    // Slippage moves the bound against the trader by slippageBps of the quoted amount, rounded in their favour.
    const limit = isBuy ? (amount * BigInt(10_000 + slippageBps) + 9_999n) / 10_000n : (amount * BigInt(10_000 - slippageBps)) / 10_000n;
    const now = clock.now();
    return {
      market,
      chainId: chain.chainId,
      outcome: req.outcome,
      side: req.side,
      shares: shares.toString(),
      amount: amount.toString(),
      cost: cost.toString(),
      fees: { protocol: protocolFee.toString(), creator: creatorFee.toString(), total: fees.toString() },
      averagePrice: wadToDecimal((amount * WAD) / shares),
      marginalPriceBefore: wadToDecimal(before[req.outcome]!),
      marginalPriceAfter: wadToDecimal(pricesAfter[req.outcome]!),
      pricesAfter: pricesAfter.map(wadToDecimal),
      slippageBps,
      limit: limit.toString(),
      quotedAtBlock: block.number.toString(),
      quotedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + QUOTE_TTL_MS).toISOString(),
      recommendedRefreshMs: TRADE_DEFAULTS.recommendedRefreshMs,
    };
  }

  return {
    quote: async (req) => quoteFor(await tradeableMarket(req.market, req.outcome), req),
    async prepare(principal, req) {
      const agent = await requireAgent(db, principal);
      if (!agent.wallet_address) throw problem('WALLET_NOT_BOUND', 'trading needs a bound wallet: it signs the router transaction (POST /agents/me/bind-wallet)');
      const trader = getAddress(agent.wallet_address);
      const row = await tradeableMarket(req.market, req.outcome);
      const symbol = row.collateral_symbol as 'USDC' | 'PM';
      const lane = chain.lane();
      const router = lane.routers[symbol];
      const shares = BigInt(req.shares);
      if (req.side === 'sell') {
        // A sell is checked against the wallet before the market: "you hold fewer shares" says more than a revert.
        const id = (BigInt(row.address) << 8n) | BigInt(req.outcome);
        const [approved, held] = await chain.guard(() =>
          Promise.all([
            chain.client.readContract({ address: lane.outcomeToken, abi: outcomeAbi, functionName: 'isApprovedForAll', args: [trader, router] }) as Promise<boolean>,
            chain.client.readContract({ address: lane.outcomeToken, abi: outcomeAbi, functionName: 'balanceOf', args: [trader, id] }) as Promise<bigint>,
          ]),
        );
        if (!approved) throw approvalRequired(outcomeTokenApproval(chain.chainId, lane.outcomeToken, router), `sells pull your outcome shares: approve the router ${router} on the outcome token`);
        if (held < shares) throw problem('INSUFFICIENT_BALANCE', `wallet ${trader} holds ${held} shares of outcome ${req.outcome}; this sell needs ${shares}`, { extensions: { token: lane.outcomeToken, required: shares.toString(), balance: held.toString() } });
      }
      const q = await quoteFor(row, req);
      const isBuy = req.side === 'buy';
      const limit = req.limit ?? q.limit;
      if (isBuy) {
        const token = getAddress(row.collateral_token);
        const [allowance, balance] = await chain.guard(() =>
          Promise.all([
            chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [trader, router] }),
            chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [trader] }),
          ]),
        );
        if (allowance < BigInt(limit)) throw approvalRequired(collateralApproval(chain.chainId, token, router), `the router ${router} may move ${allowance} of your ${symbol}; this buy may cost up to ${limit}`);
        if (balance < BigInt(q.amount)) throw problem('INSUFFICIENT_BALANCE', `this buy costs ${q.amount} ${symbol} base units; wallet ${trader} holds ${balance}`, { extensions: { token, required: q.amount, balance: balance.toString() } });
      }
      const deadline = BigInt(Math.floor(clock.now().getTime() / 1000) + (req.deadlineSeconds ?? INTENT_DEADLINE_SECONDS));
      const recipient = req.recipient ? getAddress(req.recipient) : trader;
      const intent = { market: q.market, outcome: req.outcome, isBuy, shares, limit: BigInt(limit), deadline, recipient };
      const data = encodeFunctionData({ abi: routerAbi, functionName: 'executeTradeIntent', args: [intent] });
      return {
        quote: q,
        intent: { ...intent, shares: shares.toString(), limit, deadline: deadline.toString() },
        transaction: { chainId: chain.chainId, from: trader, to: router, data, value: '0' },
      };
    },
  };
}

function approvalRequired(recipe: ReturnType<typeof collateralApproval>, detail: string) {
  return problem('APPROVAL_REQUIRED', `${detail}; send the approval in "approvals", then prepare again`, { extensions: { approvals: [recipe] } });
}

function reasonOf(name: string): string {
  switch (name) {
    case 'PriceOutOfBand':
      return ' (the trade would push a price outside 0.1%..99.9%; trade fewer shares)';
    case 'SharesExceedOutstanding':
      return ' (more shares than are outstanding for this outcome)';
    case 'ZeroProceeds':
      return ' (the sell is too small to pay anything after fees)';
    case 'ZeroShares':
      return ' (shares must be positive)';
    case 'MarketClosed':
      return ' (trading stopped: the market reached its close time or its creator proposed an outcome)';
    default:
      return '';
  }
}
