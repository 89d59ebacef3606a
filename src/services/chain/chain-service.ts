/**
 * Chain reads for discovery and transaction status. The chain is the authority: receipts,
 * priority fees and token metadata are read from the node; the relayer's records only add
 * what the node cannot say (a transaction we sent that the node no longer knows: dropped).
 */
import { erc20Abi, getAddress, type Address, type Hex, type PublicClient, type Transaction, type TransactionReceipt } from 'viem';
import type { Kysely } from 'kysely';
import { problem } from '../../core/error-codes.ts';
import type { DB } from '../../db/schema.ts';
import { listDeployments, type DeploymentRecord } from '../../chain/deployer.ts';
import type { Relayer } from '../../chain/relayer.ts';
import type { MarketsLane } from '../../chain/markets-lane.ts';
import type { ChainLiveness, ChainLivenessState } from '../../chain/liveness.ts';

/** Seconds a caller refused for a down node is asked to wait (the probe interval is shorter). */
const CHAIN_RETRY_AFTER_S = 5;

export interface ChainSettings {
  id: number;
  name: string;
  publicRpcUrl: string;
  blockExplorerUrl: string;
  readAfterWriteWindowMs: number;
}

export interface CollateralToken {
  symbol: 'USDC' | 'PM';
  token: Address;
  decimals: number;
  chainId: number;
  enabled: boolean;
  role: 'protocol' | 'stable';
}

export type TransactionState = 'CONFIRMED' | 'REVERTED' | 'PENDING' | 'DROPPED';

export interface TransactionStatus {
  state: TransactionState;
  chainId: number;
  txHash: Hex;
  blockNumber: string | null;
  confirmedAt: string | null;
  receipt: { status: string; blockNumber: string; blockHash: Hex; transactionIndex: string } | null;
}

export interface ChainService {
  readonly chainId: number;
  settings(): ChainSettings;
  recommendedPriorityFeeWei(): Promise<bigint>;
  head(): Promise<{ blockNumber: bigint; timestamp: Date }>;
  collateral(): CollateralToken[];
  deployments(): Promise<DeploymentRecord[]>;
  /** The automated-market lane's contracts (outcome token, routers, factories). */
  lane(): MarketsLane;
  /** The public client, for reads the market services make (quotes, receipts, logs). */
  readonly client: PublicClient;
  transactionStatus(hash: Hex): Promise<TransactionStatus>;
  /** The transaction, or null when the node does not know it; an unreachable node is SERVICE_UNAVAILABLE, never null. */
  transactionOf(hash: Hex): Promise<Transaction | null>;
  /** The receipt, or null while the transaction is not mined (or unknown); an unreachable node is SERVICE_UNAVAILABLE. */
  receiptOf(hash: Hex): Promise<TransactionReceipt | null>;
  /** Throws `code` (UNSUPPORTED_CHAIN or INVALID_CHAIN, per the endpoint's spec) for a chain id we do not serve. */
  requireServed(chainId: number | undefined, code: 'UNSUPPORTED_CHAIN' | 'INVALID_CHAIN'): void;
  /** Throws SERVICE_UNAVAILABLE when the node does not answer (and marks it down until a probe finds it back). */
  guard<T>(fn: () => Promise<T>): Promise<T>;
  /** Whether the node answers and svc has reconciled with it since it last came back. */
  liveness(): ChainLivenessState;
  /** Throws SERVICE_UNAVAILABLE with Retry-After while the node is down or being reconciled. */
  requireLive(): void;
}

/** The reviewed collaterals a query names by symbol (any case) or token address. */
export function matchCollateral(tokens: readonly CollateralToken[], value: string): CollateralToken[] {
  const wanted = value.toLowerCase();
  return tokens.filter((c) => c.symbol.toLowerCase() === wanted || c.token.toLowerCase() === wanted);
}

export async function readCollateral(
  client: PublicClient,
  chainId: number,
  tokens: { symbol: 'USDC' | 'PM'; address: Address }[],
): Promise<CollateralToken[]> {
  return Promise.all(
    tokens.map(async (t) => ({
      symbol: t.symbol,
      token: getAddress(t.address),
      decimals: Number(await client.readContract({ address: t.address, abi: erc20Abi, functionName: 'decimals' })),
      chainId,
      enabled: true,
      role: t.symbol === 'PM' ? ('protocol' as const) : ('stable' as const),
    })),
  );
}

export function createChainService(deps: {
  db: Kysely<DB>;
  client: PublicClient;
  relayer: Relayer;
  settings: ChainSettings;
  collateral: CollateralToken[];
  /** Absent only in tests that exercise transaction status alone. */
  lane?: MarketsLane;
  /** Absent: the node is taken to be up (tests of reads alone). */
  liveness?: ChainLiveness;
}): ChainService {
  const { client, settings } = deps;

  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (isNodeUnreachable(err)) {
        deps.liveness?.down('a read found the node unreachable');
        throw problem('SERVICE_UNAVAILABLE', 'the chain node is not reachable; retry shortly', { cause: err, headers: { 'Retry-After': String(CHAIN_RETRY_AFTER_S) } });
      }
      throw err;
    }
  };

  // Any failure but an unreachable node means "not known": that is what the node answers for a missing hash.
  const orNull = <T>(read: () => Promise<T>): Promise<T | null> =>
    guard(() =>
      read().catch((err: unknown) => {
        if (isNodeUnreachable(err)) throw err;
        return null;
      }),
    );
  const transactionOf = (hash: Hex) => orNull(() => client.getTransaction({ hash }));
  const receiptOf = (hash: Hex) => orNull(() => client.getTransactionReceipt({ hash }));

  return {
    chainId: settings.id,
    settings: () => settings,
    recommendedPriorityFeeWei: () => guard(() => client.estimateMaxPriorityFeePerGas()),
    head: () =>
      guard(async () => {
        const block = await client.getBlock({ blockTag: 'latest' });
        return { blockNumber: block.number, timestamp: new Date(Number(block.timestamp) * 1000) };
      }),
    collateral: () => deps.collateral,
    lane: () => {
      if (!deps.lane) throw new Error('chain service: the markets lane is not deployed');
      return deps.lane;
    },
    client,
    requireServed(chainId, code) {
      if (chainId !== undefined && chainId !== settings.id) throw problem(code, `chain ${chainId} is not served here; active chain: ${settings.id}`);
    },
    deployments: () => listDeployments(deps.db, settings.id),
    guard,
    liveness: () => deps.liveness?.state() ?? { up: true, reason: null, since: 0 },
    requireLive() {
      const state = deps.liveness?.state();
      if (state && !state.up) {
        throw problem('SERVICE_UNAVAILABLE', `the chain node is down (${state.reason}); this write waits on the chain, so it is refused until the node is back and reconciled`, {
          headers: { 'Retry-After': String(CHAIN_RETRY_AFTER_S) },
          extensions: { chainDownSince: new Date(state.since).toISOString() },
        });
      }
    },
    transactionOf,
    receiptOf,
    transactionStatus: (hash) =>
      guard(async () => {
        const receipt = await receiptOf(hash);
        if (receipt) {
          const block = await client.getBlock({ blockHash: receipt.blockHash });
          return {
            state: receipt.status === 'success' ? 'CONFIRMED' : 'REVERTED',
            chainId: settings.id,
            txHash: hash,
            blockNumber: receipt.blockNumber.toString(),
            confirmedAt: new Date(Number(block.timestamp) * 1000).toISOString(),
            receipt: {
              status: receipt.status,
              blockNumber: receipt.blockNumber.toString(),
              blockHash: receipt.blockHash,
              transactionIndex: String(receipt.transactionIndex),
            },
          };
        }
        const pending = await transactionOf(hash);
        const ours = await deps.relayer.findByHash(hash);
        const unmined = { chainId: settings.id, txHash: hash, blockNumber: null, confirmedAt: null, receipt: null };
        if (pending) return { state: 'PENDING', ...unmined };
        if (ours) {
          const mined = await client.getTransactionCount({ address: ours.from, blockTag: 'latest' });
          return { state: mined > ours.nonce || ours.state === 'dropped' ? 'DROPPED' : 'PENDING', ...unmined };
        }
        throw problem('NOT_FOUND', `transaction ${hash} is not known to chain ${settings.id}`);
      }),
  };
}

function isNodeUnreachable(err: unknown): boolean {
  const text = String((err as { name?: string; message?: string; details?: string })?.name ?? '') + ' ' + String((err as Error)?.message ?? '');
  return /HttpRequestError|ECONNREFUSED|fetch failed|TimeoutError|socket hang up|ECONNRESET/i.test(text);
}
