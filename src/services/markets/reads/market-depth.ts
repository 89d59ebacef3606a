/** GET /markets/{address}/depth: an LMSR market's buy ladder, quoted by its contract. */
import { getAddress, type Address, type PublicClient } from 'viem';
import { loadArtifact } from '../../../chain/artifacts.ts';
import { isProblemError } from '../../../core/errors.ts';
import { WAD, wadToDecimal } from '../../../core/markets/price.ts';
import type { LmsrDepthT } from '../../../wire/market-reads.ts';
import type { MarketRow } from '../records.ts';

/** Depth ladder sizes as fractions of b, in basis points: 1 %, 5 %, 10 %, 25 %, 50 %. */
export const DEPTH_LEVELS_BPS = [100, 500, 1000, 2500, 5000] as const;

type Quote = readonly [amount: bigint, protocolFee: bigint, creatorFee: bigint, pricesAfter: readonly bigint[]];

export interface DepthDeps {
  client: PublicClient;
  /** Maps an unreachable node to 503 SERVICE_UNAVAILABLE (ChainService.guard). */
  guard<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * The LMSR buy ladder of every outcome: for sizes of 1, 5, 10, 25 and 50 % of b (shares in collateral base
 * units), the exact quoteBuy of the market contract via eth_call, all at one block. A market past its close
 * time refuses quotes; it is then quoted as of its last tradeable second (block time close − 1 s) on the
 * current state. A market the chain no longer quotes at all (proposed, resolved, or no code at the address)
 * gets `quote: null` on every level.
 */
export async function marketDepth(deps: DepthDeps, m: MarketRow, p: { tradeable: boolean }): Promise<LmsrDepthT> {
  const { client } = deps;
  const abi = loadArtifact('LmsrMarket').abi;
  const address = getAddress(m.address) as Address;
  const b = BigInt(m.liquidity);
  const blockNumber = await deps.guard(() => client.getBlockNumber({ cacheTime: 0 }));
  const closeSecond = BigInt(Math.floor(m.close_time.getTime() / 1000)) - 1n;

  const quote = async (outcome: number, shares: bigint, atClose: boolean): Promise<Quote | null> => {
    try {
      return (await deps.guard(() =>
        client.readContract({
          address,
          abi,
          functionName: 'quoteBuy',
          args: [outcome, shares],
          blockNumber,
          ...(atClose ? { blockOverrides: { time: closeSecond } } : {}),
        }),
      )) as Quote;
    } catch (err) {
      // A revert, no code at the address (a market gone with a reorg) or a node refusing block overrides: no
      // quote. An unreachable node is not a refusal: guard made it SERVICE_UNAVAILABLE, which propagates.
      if (isProblemError(err)) throw err;
      return null;
    }
  };

  // One probe decides the basis; a quote refused at one level only (a price leaving its band) is null alone.
  const probeShares = (b * BigInt(DEPTH_LEVELS_BPS[0])) / 10_000n;
  let basis: LmsrDepthT['basis'] = 'live';
  if ((await quote(0, probeShares, false)) === null) basis = (await quote(0, probeShares, true)) === null ? 'unavailable' : 'at_close';

  const outcomes = await Promise.all(
    Array.from({ length: m.outcome_count }, async (_, i) => ({
      index: i,
      label: m.outcomes[i] ?? `Outcome ${i + 1}`,
      price: wadToDecimal(m.prices[i] ?? '0'),
      levels: await Promise.all(
        DEPTH_LEVELS_BPS.map(async (bps) => {
          const shares = (b * BigInt(bps)) / 10_000n;
          const q = basis === 'unavailable' || shares === 0n ? null : await quote(i, shares, basis === 'at_close');
          return {
            fractionBps: bps,
            shares: shares.toString(),
            quote: q && {
              amount: q[0].toString(),
              protocolFee: q[1].toString(),
              creatorFee: q[2].toString(),
              averagePrice: wadToDecimal((q[0] * WAD) / shares),
              priceAfter: wadToDecimal(q[3][i] ?? 0n),
            },
          };
        }),
      ),
    })),
  );
  return {
    kind: 'lmsr',
    market: address,
    chainId: m.chain_id,
    tradeable: p.tradeable && basis === 'live',
    basis,
    blockNumber: blockNumber.toString(),
    liquidity: m.liquidity,
    outcomes,
  };
}
