/**
 * Claim sweep for one wallet holding N winning positions (issue 17), on a fresh anvil from the committed artifacts:
 * one LmsrMarket.redeem(holder) transaction per market (the anchor) next to PayoutRouter.redeemMany in batches.
 * Reports transactions, gas per claim and wall time; prints, asserts no timing, but throws when the holder was not
 * paid exactly the shares redeemed. Run alone with `node --import ./bench/compile.mjs bench/claims.ts`; BENCH_CLAIM_POSITIONS sets N (default
 * 200), BENCH_CLAIM_BATCH the claims per redeemMany transaction (default 100).
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  createPublicClient,
  createTestClient,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  http,
  keccak256,
  parseEventLogs,
  parseGwei,
  parseUnits,
  stringToHex,
  TransactionReceiptNotFoundError,
  type Address,
  type Hash,
  type Hex,
  type PrivateKeyAccount,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { anvilDevAccounts, startAnvil } from '../src/chain/anvil.ts';
import { loadArtifact, type ContractName } from '../src/chain/artifacts.ts';
import { intFromEnv, runIfMain, withCleanups } from './scope.ts';

export interface ClaimsBenchOptions {
  /** Winning positions of the swept wallet, one per market; each of the two sweeps claims this many. */
  positions: number;
  /** Claims per redeemMany transaction. */
  batch: number;
  log: (line: string) => void;
}

export interface ClaimSweep {
  name: string;
  claims: number;
  transactions: number;
  /** Sum of the receipts' gasUsed (base cost, calldata and execution, after refunds). */
  gas: bigint;
  gasPerClaim: number;
  /** From the first signature to the last receipt; anvil mines one block per transaction. */
  wallMs: number;
  /** PM base units the holder received: checked equal to the shares redeemed. */
  paid: bigint;
}

export interface ClaimsBenchReport {
  setup: string[];
  anchor: ClaimSweep;
  batched: ClaimSweep;
}

const CHAIN = { ...foundry, id: 8453 };
const MAX_UINT = 2n ** 256n - 1n;
const PM = 10n ** 18n;
const BOND = 100n * PM;
const LIQUIDITY = 100n * PM;
const SHARES = 10n * PM;
const CHALLENGE_WINDOW = 7_200;
const TARGET_GAS_PER_CLAIM = 60_000;
// Generous and fixed: on a local node only gasUsed matters, and anvil's base fee stays well below this.
const MAX_FEE = parseGwei('50');

/** Signs locally with tracked nonces and sends raw, so a bulk phase costs one round trip per transaction. */
function chainKit(rpcUrl: string) {
  const pub = createPublicClient({ chain: CHAIN, transport: http(rpcUrl, { batch: true }) });
  const test = createTestClient({ chain: CHAIN, mode: 'anvil', transport: http(rpcUrl) });
  const nonces = new Map<Address, number>();

  const encode = (name: ContractName, functionName: string, args: readonly unknown[]): Hex => encodeFunctionData({ abi: loadArtifact(name).abi, functionName, args });

  /** Gas of one call as the node estimates it, with half again as margin: bulk phases reuse it for same-shaped calls. */
  const gasFor = async (from: PrivateKeyAccount, to: Address | undefined, data: Hex): Promise<bigint> =>
    ((await pub.estimateGas({ account: from.address, ...(to === undefined ? {} : { to }), data })) * 3n) / 2n;

  async function send(from: PrivateKeyAccount, to: Address | undefined, data: Hex, gas: bigint): Promise<Hash> {
    let nonce = nonces.get(from.address);
    if (nonce === undefined) nonce = await pub.getTransactionCount({ address: from.address, blockTag: 'pending' });
    nonces.set(from.address, nonce + 1);
    const signed = await from.signTransaction({ chainId: CHAIN.id, type: 'eip1559', nonce, gas, maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: 1n, data, ...(to === undefined ? {} : { to }) });
    return pub.sendRawTransaction({ serializedTransaction: signed });
  }

  /** The receipt of each hash (polled together, one batched request a round); throws when one reverted. */
  async function receipts(hashes: readonly Hash[], label: string): Promise<TransactionReceipt[]> {
    const one = async (hash: Hash): Promise<TransactionReceipt> => {
      for (;;) {
        try {
          return await pub.getTransactionReceipt({ hash });
        } catch (err) {
          if (!(err instanceof TransactionReceiptNotFoundError)) throw err;
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    };
    const out = await Promise.all(hashes.map(one));
    const failed = out.find((r) => r.status !== 'success');
    if (failed) throw new Error(`bench: claims: ${label} reverted (transaction ${failed.transactionHash})`);
    return out;
  }

  /** One transaction after another, each sent as soon as the previous one is accepted; then all receipts. */
  async function sendAll(from: PrivateKeyAccount, txs: readonly { to: Address; data: Hex }[], label: string, gas?: bigint): Promise<TransactionReceipt[]> {
    if (txs.length === 0) return [];
    const limit = gas ?? (await gasFor(from, txs[0]!.to, txs[0]!.data));
    const hashes: Hash[] = [];
    for (const tx of txs) hashes.push(await send(from, tx.to, tx.data, limit));
    return receipts(hashes, label);
  }

  /**
   * A setup phase: automine off while `txs` are sent, then blocks mined until the last is in one, so that hundreds of
   * transactions share a few blocks instead of one block each (several times faster on anvil).
   */
  async function bulk(from: PrivateKeyAccount, txs: readonly { to: Address; data: Hex }[], label: string): Promise<TransactionReceipt[]> {
    if (txs.length === 0) return [];
    const limit = await gasFor(from, txs[0]!.to, txs[0]!.data);
    await test.setAutomine(false);
    try {
      const hashes: Hash[] = [];
      for (const tx of txs) hashes.push(await send(from, tx.to, tx.data, limit));
      // One sender, consecutive nonces: once the last is mined, all are. At least one per block, or one is stuck.
      for (let blocks = 0; (await pub.getTransactionReceipt({ hash: hashes[hashes.length - 1]! }).catch(() => undefined)) === undefined; blocks++) {
        if (blocks > txs.length) throw new Error(`bench: claims: ${label}: ${txs.length} transactions still not mined after ${blocks} blocks`);
        await test.mine({ blocks: 1 });
      }
      return await receipts(hashes, label);
    } finally {
      await test.setAutomine(true);
    }
  }

  async function deploy(from: PrivateKeyAccount, name: ContractName, args: readonly unknown[]): Promise<Address> {
    const { abi, bytecode } = loadArtifact(name);
    const data = encodeDeployData({ abi, bytecode, args });
    const [receipt] = await receipts([await send(from, undefined, data, await gasFor(from, undefined, data))], `deploying ${name}`);
    if (!receipt?.contractAddress) throw new Error(`bench: claims: deploying ${name} returned no address`);
    return getAddress(receipt.contractAddress);
  }

  const call = (from: PrivateKeyAccount, name: ContractName, to: Address, functionName: string, args: readonly unknown[]) =>
    sendAll(from, [{ to, data: encode(name, functionName, args) }], `${name}.${functionName}`);

  const pmOf = (pm: Address, who: Address) => pub.readContract({ address: pm, abi: loadArtifact('ParticipationToken').abi, functionName: 'balanceOf', args: [who] }) as Promise<bigint>;

  return { pub, test, encode, gasFor, send, receipts, sendAll, bulk, deploy, call, pmOf };
}

type Kit = ReturnType<typeof chainKit>;

/**
 * Sends `txs` from `keeper` (gas limit from the first one), timing signing, sending and receipts, then checks that
 * `holder` got exactly `claims` × SHARES and that every claim emitted Redeemed for it, none ClaimSkipped.
 */
async function sweep(kit: Kit, name: string, keeper: PrivateKeyAccount, pm: Address, holder: Address, claims: number, txs: { to: Address; data: Hex }[]): Promise<ClaimSweep> {
  const gas = await kit.gasFor(keeper, txs[0]!.to, txs[0]!.data);
  const before = await kit.pmOf(pm, holder);
  const t0 = performance.now();
  const receipts = await kit.sendAll(keeper, txs, name, gas);
  const wallMs = performance.now() - t0;
  const paid = (await kit.pmOf(pm, holder)) - before;

  const logs = receipts.flatMap((r) => r.logs);
  const redeemed = parseEventLogs({ abi: loadArtifact('LmsrMarket').abi, logs, eventName: 'Redeemed' }).map((l) => l.args as { holder: Address; shares: bigint; payout: bigint });
  const skipped = parseEventLogs({ abi: loadArtifact('PayoutRouter').abi, logs, eventName: 'ClaimSkipped' });
  const expected = BigInt(claims) * SHARES;
  const eventPaid = redeemed.reduce((sum, r) => sum + r.payout, 0n);
  if (skipped.length > 0 || redeemed.length !== claims || redeemed.some((r) => r.holder !== holder || r.shares !== SHARES) || eventPaid !== expected || paid !== expected) {
    throw new Error(
      `bench: claims: ${name} paid ${paid} (events: ${redeemed.length} Redeemed summing ${eventPaid}, ${skipped.length} ClaimSkipped), expected ${claims} claims of ${SHARES} = ${expected}`,
    );
  }
  const total = receipts.reduce((sum, r) => sum + r.gasUsed, 0n);
  return { name, claims, transactions: receipts.length, gas: total, gasPerClaim: Number(total) / claims, wallMs, paid };
}

export async function benchClaims(opts: ClaimsBenchOptions): Promise<ClaimsBenchReport> {
  const { log, positions: n, batch } = opts;
  return withCleanups(log, async (cleanups) => {
    const started = performance.now();
    const anvil = await startAnvil();
    cleanups.push(() => anvil.stop());
    const kit = chainKit(anvil.rpcUrl);
    const [owner, treasury, creator, walletA, walletB, keeper] = anvilDevAccounts()
      .slice(0, 6)
      .map((k) => privateKeyToAccount(k)) as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount];
    // anvil_nodeInfo is not in viem's RPC schema.
    const info = (await kit.pub.request({ method: 'anvil_nodeInfo' } as never)) as { hardFork?: string; environment?: { gasLimit?: number | string } };

    log(`bench: claims: deploying the lane on anvil ${anvil.rpcUrl}`);
    const pm = await kit.deploy(owner, 'ParticipationToken', [owner.address, parseUnits('1000000000', 18)]);
    const outcomeToken = await kit.deploy(owner, 'OutcomeToken', [owner.address]);
    const resolver = await kit.deploy(owner, 'MarketResolver', [owner.address, pm, BOND, CHALLENGE_WINDOW, 86_400, true]);
    const implementation = await kit.deploy(owner, 'LmsrMarket', [outcomeToken, pm, resolver]);
    const router = await kit.deploy(owner, 'TradeRouter', [pm, outcomeToken, owner.address]);
    const factory = await kit.deploy(owner, 'LmsrMarketFactory', [2, implementation, owner.address, treasury.address, 100, 300, BOND]);
    const payoutRouter = await kit.deploy(owner, 'PayoutRouter', []);
    await kit.call(owner, 'OutcomeToken', outcomeToken, 'setFactory', [factory, true]);
    await kit.call(owner, 'TradeRouter', router, 'setFactory', [factory, true]);
    await kit.call(owner, 'LmsrMarketFactory', factory, 'setCollateral', [pm, router, LIQUIDITY]);
    // Each market costs its creator the bond and at most b·ln 2 of subsidy; each buy of 10 shares under 10 PM + fees.
    await kit.call(owner, 'ParticipationToken', pm, 'transfer', [creator.address, BigInt(2 * n) * (BOND + LIQUIDITY)]);
    for (const w of [walletA, walletB]) await kit.call(owner, 'ParticipationToken', pm, 'transfer', [w.address, BigInt(n) * 2n * SHARES + 1_000n * PM]);
    await kit.call(creator, 'ParticipationToken', pm, 'approve', [factory, MAX_UINT]);
    for (const w of [walletA, walletB]) await kit.call(w, 'ParticipationToken', pm, 'approve', [router, MAX_UINT]);

    // Two wallets, each holding N winning positions in its own N markets: every claim is the first and only
    // redemption of its market from the same storage state (holder's PM balance non-zero before, shares and the
    // market's outstanding winning shares going to zero), so the two sweeps differ only in how they are sent.
    log(`bench: claims: creating ${2 * n} binary PM markets`);
    const closeTime = (await kit.pub.getBlock()).timestamp + 30n * 86_400n;
    const created = await kit.bulk(
      creator,
      Array.from({ length: 2 * n }, (_, i) => ({
        to: factory,
        data: kit.encode('LmsrMarketFactory', 'createMarket', [pm, keccak256(stringToHex(`bench claims ${i}`)), closeTime, 3 * 86_400, LIQUIDITY, 100, 100, BOND]),
      })),
      'createMarket',
    );
    const markets = created.map((r) => {
      const [event] = parseEventLogs({ abi: loadArtifact('LmsrMarketFactory').abi, logs: r.logs, eventName: 'MarketCreated' });
      return (event!.args as { market: Address }).market;
    });
    const setA = markets.slice(0, n);
    const setB = markets.slice(n);

    log(`bench: claims: buying ${SHARES / PM} winning shares per market, N=${n} markets per wallet`);
    for (const [w, set] of [[walletA, setA], [walletB, setB]] as const) {
      const intent = (m: Address) => ({ market: m, outcome: 0, isBuy: true, shares: SHARES, limit: MAX_UINT, deadline: closeTime, recipient: w.address });
      await kit.bulk(w, set.map((m) => ({ to: router, data: kit.encode('TradeRouter', 'executeTradeIntent', [intent(m)]) })), 'buy');
    }

    log(`bench: claims: resolving ${2 * n} markets (propose, ${CHALLENGE_WINDOW + 1} s later finalize)`);
    await kit.bulk(creator, markets.map((m) => ({ to: resolver, data: kit.encode('MarketResolver', 'propose', [m, 1]) })), 'propose');
    await kit.test.increaseTime({ seconds: CHALLENGE_WINDOW + 1 });
    await kit.test.mine({ blocks: 1 });
    await kit.bulk(keeper, markets.map((m) => ({ to: resolver, data: kit.encode('MarketResolver', 'finalize', [m]) })), 'finalize');
    const setupMs = performance.now() - started;

    log(`bench: claims: anchor, ${n} × redeem(holder)`);
    const perMarket = setA.map((m) => ({ to: m, data: kit.encode('LmsrMarket', 'redeem', [walletA.address]) }));
    const anchor = await sweep(kit, 'redeem(holder), 1 tx per market (anchor)', keeper, pm, walletA.address, n, perMarket);
    log(`bench: claims: batched, redeemMany × ${batch} per transaction`);
    const chunks: Address[][] = [];
    for (let i = 0; i < setB.length; i += batch) chunks.push(setB.slice(i, i + batch));
    const batches = chunks.map((c) => ({ to: payoutRouter, data: kit.encode('PayoutRouter', 'redeemMany', [c.map((m) => ({ market: m, holder: walletB.address }))]) }));
    const batched = await sweep(kit, `redeemMany, ${batch} claims per tx`, keeper, pm, walletB.address, n, batches);

    const setup = [
      `${cpus().length} CPU(s), Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}; anvil ${info.hardFork === undefined ? '' : `hardfork ${info.hardFork}, `}block gas limit ${Number(info.environment?.gasLimit ?? 0).toLocaleString('en-US')}`,
      `setup ${(setupMs / 1000).toFixed(1)} s: the lane deployed from artifacts/, ${2 * n} binary PM markets (b = ${LIQUIDITY / PM} PM), two wallets with ${n} winning positions of ${SHARES / PM} shares each, all resolved undisputed`,
      "fairness: two wallets; each sweep claims one wallet's own N markets, every claim the first and only redemption of its market from",
      "          the same storage state (holder PM balance non-zero, its shares and the market's outstanding winning shares going to 0), each",
      '          market cold in both sweeps; a batch pays once per transaction what the anchor pays per claim: 21k base gas and the first (cold)',
      "          access to PM, the OutcomeToken and the holder's PM balance slot, whose later writes in the same transaction are warm",
      'sent by a keeper, not the holder (the relayer case), under automine (one block per transaction; setup was mined in bulk); signed',
      "          locally, each sent once the previous is accepted, then the receipts; wall time is a local node's overhead per transaction,",
      '          not chain latency (a real chain puts many transactions in one block)',
      `check: the holder's PM balance rose by exactly the shares redeemed (${n} × ${SHARES / PM} PM) in both sweeps, every claim emitted Redeemed, none ClaimSkipped`,
    ];
    return { setup, anchor, batched };
  });
}

const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const times = (x: number): string => `${x >= 0.1 ? x.toFixed(2) : x.toPrecision(2)}×`;

/** The report as an aligned text table. */
export function formatClaimsReport(report: ClaimsBenchReport): string {
  const { anchor, batched } = report;
  const header = ['sweep', 'claims', 'txs', 'total gas', 'gas/claim', 'wall ms', 'gas/claim vs anchor', 'wall vs anchor'];
  const line = (s: ClaimSweep): string[] => [
    s.name,
    int(s.claims),
    int(s.transactions),
    int(Number(s.gas)),
    int(s.gasPerClaim),
    s.wallMs.toLocaleString('en-US', { maximumFractionDigits: s.wallMs < 10 ? 1 : 0 }),
    times(s.gasPerClaim / anchor.gasPerClaim),
    times(s.wallMs / anchor.wallMs),
  ];
  const cells = [header, line(anchor), line(batched)];
  const widths = header.map((_, c) => Math.max(...cells.map((row) => row[c]!.length)));
  const render = (row: string[]) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd();
  const target = `target (issue 17): under ${int(TARGET_GAS_PER_CLAIM)} gas per claim batched: ${batched.gasPerClaim < TARGET_GAS_PER_CLAIM ? 'met' : 'NOT met'} (${int(batched.gasPerClaim)})`;
  return [...report.setup.map((l) => `# ${l}`), '', render(header), widths.map((w) => '-'.repeat(w)).join('  '), render(cells[1]!), render(cells[2]!), '', target].join('\n');
}

/** BENCH_CLAIM_POSITIONS (1..2,000, default 200) and BENCH_CLAIM_BATCH (1..400, default 100) from the environment. */
export const claimsOptionsFromEnv = (): { positions: number; batch: number } => ({
  positions: intFromEnv('BENCH_CLAIM_POSITIONS', 200, 1, 2_000),
  batch: intFromEnv('BENCH_CLAIM_BATCH', 100, 1, 400),
});

runIfMain(import.meta.url, async (log) => {
  const report = await benchClaims({ ...claimsOptionsFromEnv(), log });
  log('');
  log(formatClaimsReport(report));
});
