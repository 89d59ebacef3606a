// Deploys the automated-market contracts from the committed artifacts onto a fresh anvil (outcome token, LMSR market
// implementation, binary and ternary factories, one router per collateral) and checks creation, trading, fees,
// bounds and solvency against real receipts and balances. Nothing is mocked.
import fc from 'fast-check';
import {
  keccak256,
  parseEventLogs,
  parseUnits,
  stringToHex,
  toFunctionSelector,
  type AbiFunction,
  type Address,
  type PrivateKeyAccount,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractKit } from '../support/contract-kit.ts';
import { anvilDevAccounts, startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { abiWithAllErrors, loadArtifact, runtimeCodeHashOf, type ContractName } from '../../src/chain/artifacts.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { replayable } from '../support/property.ts';

const [ownerKey, treasuryKey, creatorKey, aliceKey, bobKey] = anvilDevAccounts() as [`0x${string}`, `0x${string}`, `0x${string}`, `0x${string}`, `0x${string}`];
const owner = privateKeyToAccount(ownerKey);
const treasury = privateKeyToAccount(treasuryKey);
const creator = privateKeyToAccount(creatorKey);
const alice = privateKeyToAccount(aliceKey);
const bob = privateKeyToAccount(bobKey);
const traders = [alice, bob] as const;

type Sym = 'USDC' | 'PM';
type Outcomes = 2 | 3;
const UNIT: Record<Sym, bigint> = { USDC: 10n ** 6n, PM: 10n ** 18n };
const WAD = 10n ** 18n;
const MAX_UINT = 2n ** 256n - 1n;
const MIN_PRICE = 10n ** 15n;
const DAY = 86_400n;
/** ln(2) and ln(3) to 30 decimals. */
const LN: Record<Outcomes, bigint> = { 2: 693147180559945309417232121458n, 3: 1098612288668109691395245236922n };

// The deployment values of src/core/markets/fees.ts (see docs/contracts.md).
const PROTOCOL_FEE_BPS = 100;
const MAX_CREATOR_FEE_BPS = 300;
const CREATION_BOND = parseUnits('100', 18);
const FLOOR: Record<Sym, bigint> = { USDC: parseUnits('100', 6), PM: parseUnits('100', 18) };
const RESOLUTION_WINDOW = 3 * 86_400;

let anvil: AnvilHandle;
let pub: ReturnType<typeof contractKit>['pub'];

interface Env {
  token: Record<Sym, Address>;
  outcomeToken: Address;
  implementation: Address;
  router: Record<Sym, Address>;
  factory: Record<Outcomes, Address>;
}
let env: Env;

interface Market {
  address: Address;
  n: Outcomes;
  sym: Sym;
  liquidity: bigint;
  subsidy: bigint;
  bond: bigint;
  creatorFeeBps: number;
  closeTime: bigint;
}

interface Quote {
  /** Buy: total paid incl. fees. Sell: proceeds after fees. */
  amount: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  /** Every outcome's price after the trade, 1e18 = 1. */
  pricesAfter: readonly bigint[];
}

interface TradeEvent {
  trader: Address;
  recipient: Address;
  outcome: number;
  isBuy: boolean;
  shares: bigint;
  cost: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  pricesAfter: readonly bigint[];
}

const gas: Record<string, bigint> = {};

// Clients and helpers over the committed artifacts (test/support/contract-kit.ts), bound in beforeAll.
let kit: ReturnType<typeof contractKit>;
const deploy = (name: ContractName, args: readonly unknown[]) => kit.deploy(name, args);
const read = <T>(name: ContractName, address: Address, functionName: string, args: readonly unknown[] = []) => kit.read<T>(name, address, functionName, args);
const send = (name: ContractName, address: Address, from: PrivateKeyAccount, functionName: string, args: readonly unknown[]) => kit.send(name, address, from, functionName, args);
const revertOf = (name: ContractName, address: Address, from: PrivateKeyAccount, functionName: string, args: readonly unknown[]) => kit.revertOf(name, address, from, functionName, args);
const now = () => kit.now();

function balanceOf(sym: Sym, account: Address): Promise<bigint> {
  return read<bigint>('TestUSDC', env.token[sym], 'balanceOf', [account]);
}

function tokenId(m: Market, outcome: number): bigint {
  return (BigInt(m.address) << 8n) | BigInt(outcome);
}

function sharesOf(m: Market, outcome: number, account: Address): Promise<bigint> {
  return read<bigint>('OutcomeToken', env.outcomeToken, 'balanceOf', [account, tokenId(m, outcome)]);
}

async function outstanding(m: Market): Promise<bigint[]> {
  return [...(await read<readonly bigint[]>('LmsrMarket', m.address, 'outstandingShares'))];
}

async function prices(m: Market): Promise<bigint[]> {
  return [...(await read<readonly bigint[]>('LmsrMarket', m.address, 'prices'))];
}

function creatorFees(m: Market): Promise<bigint> {
  return read<bigint>('LmsrMarket', m.address, 'creatorFees');
}

async function quote(m: Market, isBuy: boolean, outcome: number, shares: bigint): Promise<Quote> {
  const [amount, protocolFee, creatorFee, pricesAfter] = await read<readonly [bigint, bigint, bigint, readonly bigint[]]>('LmsrMarket', m.address, isBuy ? 'quoteBuy' : 'quoteSell', [outcome, shares]);
  return { amount, protocolFee, creatorFee, pricesAfter };
}

let questionSeq = 0;
/** Creates a market as `creator`, consenting to the quoted bond unless `maxBond` says otherwise. */
async function createMarket(n: Outcomes, sym: Sym, opts: { liquidity?: bigint; creatorFeeBps?: number; closeIn?: bigint; maxBond?: bigint } = {}): Promise<Market> {
  const factory = env.factory[n];
  const liquidity = opts.liquidity ?? FLOOR[sym] * 10n;
  const creatorFeeBps = opts.creatorFeeBps ?? 100;
  const closeTime = (await now()) + (opts.closeIn ?? 30n * DAY);
  const questionHash = keccak256(stringToHex(`question ${++questionSeq}`));
  const [subsidy, bond] = await read<readonly [bigint, bigint]>('LmsrMarketFactory', factory, 'quoteCreation', [liquidity]);
  const predicted = await read<Address>('LmsrMarketFactory', factory, 'nextMarketAddress', [creator.address]);
  const receipt = await send('LmsrMarketFactory', factory, creator, 'createMarket', [env.token[sym], questionHash, closeTime, RESOLUTION_WINDOW, liquidity, PROTOCOL_FEE_BPS, creatorFeeBps, opts.maxBond ?? bond]);
  gas[`createMarket ${n === 2 ? 'binary' : 'ternary'} ${sym}`] ??= receipt.gasUsed;
  const [created] = parseEventLogs({ abi: loadArtifact('LmsrMarketFactory').abi, logs: receipt.logs, eventName: 'MarketCreated' });
  if (!created) throw new Error('no MarketCreated event');
  const args = created.args as unknown as Record<string, unknown>;
  expect(args).toEqual({
    market: predicted,
    creator: creator.address,
    collateral: env.token[sym],
    outcomeCount: n,
    questionHash,
    closeTime,
    resolutionWindow: RESOLUTION_WINDOW,
    liquidity,
    bond,
    subsidy,
    protocolFeeBps: PROTOCOL_FEE_BPS,
    creatorFeeBps,
  });
  return { address: predicted, n, sym, liquidity, subsidy, bond, creatorFeeBps, closeTime };
}

async function intent(m: Market, outcome: number, isBuy: boolean, shares: bigint, limit: bigint, recipient: Address) {
  return { market: m.address, outcome, isBuy, shares, limit, deadline: (await now()) + 3_600n, recipient };
}

function tradeEvents(receipt: TransactionReceipt): TradeEvent[] {
  return parseEventLogs({ abi: loadArtifact('LmsrMarket').abi, logs: receipt.logs, eventName: 'Trade' }).map((log) => log.args as unknown as TradeEvent);
}

/** Buys or sells through the router with the exact quote as the limit, and returns what was charged or paid. */
async function trade(m: Market, from: PrivateKeyAccount, isBuy: boolean, outcome: number, shares: bigint, limit?: bigint) {
  const q = await quote(m, isBuy, outcome, shares);
  const before = await balanceOf(m.sym, from.address);
  const receipt = await send('TradeRouter', env.router[m.sym], from, 'executeTradeIntent', [await intent(m, outcome, isBuy, shares, limit ?? q.amount, from.address)]);
  const after = await balanceOf(m.sym, from.address);
  const [event] = tradeEvents(receipt);
  if (!event) throw new Error('no Trade event');
  return { quote: q, paid: before - after, received: after - before, event, receipt };
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

function max(values: readonly bigint[]): bigint {
  return values.reduce((a, b) => (a > b ? a : b), 0n);
}

/** Float reference of LMSR prices, exp(q_i/b) / Σ exp(q_j/b). */
function referencePrices(q: readonly bigint[], b: bigint): number[] {
  const top = max(q);
  const terms = q.map((x) => Math.exp(-Number(top - x) / Number(b)));
  const sum = terms.reduce((a, t) => a + t, 0);
  return terms.map((t) => t / sum);
}

/** Each price ≥ MIN_PRICE (so in (0,1)), the sum within n − 1 units below 1e18, and within 1e-9 of the reference. */
function expectPriceInvariants(p: readonly bigint[], q: readonly bigint[], b: bigint): void {
  const n = BigInt(p.length);
  for (const x of p) {
    expect(x).toBeGreaterThanOrEqual(MIN_PRICE);
    expect(x).toBeLessThan(WAD);
  }
  const sum = p.reduce((a, x) => a + x, 0n);
  expect(sum).toBeLessThanOrEqual(WAD);
  expect(sum).toBeGreaterThanOrEqual(WAD - (n - 1n));
  const ref = referencePrices(q, b);
  p.forEach((x, i) => expect(Math.abs(Number(x) / 1e18 - ref[i]!)).toBeLessThan(1e-9));
}

/** The market holds enough collateral to pay the worst outcome, plus the creator's fees (and the bond, if PM). */
async function expectSolvent(m: Market): Promise<void> {
  const held = await balanceOf(m.sym, m.address);
  const owed = max(await outstanding(m)) + (await creatorFees(m)) + (m.sym === 'PM' ? m.bond : 0n);
  expect(held).toBeGreaterThanOrEqual(owed);
}

beforeAll(async () => {
  anvil = await startAnvil();
  kit = contractKit(anvil.rpcUrl, owner);
  pub = kit.pub;

  const pm = await deploy('ParticipationToken', [owner.address, parseUnits('1000000000', 18)]);
  const usdc = await deploy('TestUSDC', [owner.address]);
  const outcomeToken = await deploy('OutcomeToken', [owner.address]);
  // The resolver is a constructor argument of the implementation; resolution itself is test/contracts/resolution.test.ts.
  const resolver = await deploy('MarketResolver', [owner.address, pm, CREATION_BOND, 7_200, 86_400, false]);
  const implementation = await deploy('LmsrMarket', [outcomeToken, pm, resolver]);
  const router = { USDC: await deploy('TradeRouter', [usdc, outcomeToken, owner.address]), PM: await deploy('TradeRouter', [pm, outcomeToken, owner.address]) };
  const factoryArgs = [implementation, owner.address, treasury.address, PROTOCOL_FEE_BPS, MAX_CREATOR_FEE_BPS, CREATION_BOND];
  const factory = { 2: await deploy('LmsrMarketFactory', [2, ...factoryArgs]), 3: await deploy('LmsrMarketFactory', [3, ...factoryArgs]) };
  env = { token: { USDC: usdc, PM: pm }, outcomeToken, implementation, router, factory };

  for (const f of [factory[2], factory[3]]) {
    await send('OutcomeToken', outcomeToken, owner, 'setFactory', [f, true]);
    for (const sym of ['USDC', 'PM'] as const) {
      await send('TradeRouter', router[sym], owner, 'setFactory', [f, true]);
      await send('LmsrMarketFactory', f, owner, 'setCollateral', [env.token[sym], router[sym], FLOOR[sym]]);
    }
  }
  for (const who of [creator, alice, bob]) {
    await send('TestUSDC', usdc, owner, 'mint', [who.address, parseUnits('10000000', 6)]);
    await send('ParticipationToken', pm, owner, 'transfer', [who.address, parseUnits('10000000', 18)]);
  }
  for (const sym of ['USDC', 'PM'] as const) {
    for (const f of [factory[2], factory[3]]) await send('TestUSDC', env.token[sym], creator, 'approve', [f, MAX_UINT]);
    for (const who of traders) await send('TestUSDC', env.token[sym], who, 'approve', [router[sym], MAX_UINT]);
  }
  for (const who of traders) {
    for (const sym of ['USDC', 'PM'] as const) await send('OutcomeToken', outcomeToken, who, 'setApprovalForAll', [router[sym], true]);
  }
});

afterAll(async () => {
  if (Object.keys(gas).length > 0) console.info(`gas used:\n${Object.entries(gas).map(([k, v]) => `  ${k}: ${v}`).join('\n')}`);
  await anvil?.stop();
});

const KINDS = [
  [2, 'USDC'],
  [3, 'USDC'],
  [2, 'PM'],
  [3, 'PM'],
] as const;

describe('market creation', () => {
  it.each(KINDS)('creates a %i-outcome %s market funded with exactly the quoted subsidy and bond', async (n, sym) => {
    const liquidity = FLOOR[sym] * 7n;
    const [subsidy, bond] = await read<readonly [bigint, bigint]>('LmsrMarketFactory', env.factory[n], 'quoteCreation', [liquidity]);
    // b·ln(n) rounded up to a whole base unit; ln(n) is an 18-decimal fixed-point value, good to ~1e-17.
    const exact = (liquidity * LN[n]) / 10n ** 30n;
    const slack = liquidity / 10n ** 16n;
    expect(subsidy - exact).toBeGreaterThanOrEqual(-slack);
    expect(subsidy - exact).toBeLessThanOrEqual(slack + 1n);
    expect(bond).toBe(CREATION_BOND);

    const collateralBefore = await balanceOf(sym, creator.address);
    const pmBefore = await balanceOf('PM', creator.address);
    const m = await createMarket(n, sym, { liquidity, creatorFeeBps: 150 });
    const expectedCollateralOut = sym === 'PM' ? subsidy + bond : subsidy;
    expect(collateralBefore - (await balanceOf(sym, creator.address))).toBe(expectedCollateralOut);
    if (sym === 'USDC') {
      expect(pmBefore - (await balanceOf('PM', creator.address))).toBe(bond);
      expect(await balanceOf('PM', m.address)).toBe(bond);
    }
    expect(await balanceOf(sym, m.address)).toBe(expectedCollateralOut);

    const info = await read<Record<string, unknown>>('LmsrMarket', m.address, 'marketInfo');
    expect(info).toMatchObject({
      factory: env.factory[n],
      router: env.router[sym],
      collateral: env.token[sym],
      outcomeToken: env.outcomeToken,
      bondToken: env.token.PM,
      creator: creator.address,
      protocolFeeRecipient: treasury.address,
      outcomeCount: n,
      protocolFeeBps: PROTOCOL_FEE_BPS,
      creatorFeeBps: 150,
      state: 0,
      closeTime: m.closeTime,
      resolutionWindow: RESOLUTION_WINDOW,
      resolveBy: m.closeTime + BigInt(RESOLUTION_WINDOW),
      liquidity,
      bond,
      creatorFees: 0n,
      outstandingShares: Array(n).fill(0n),
      resolution: { proposedOutcome: 0, proposedAt: 0n, challengeDeadline: 0n, finalOutcome: 0 },
    });
    // Uniform prices at creation, each 1/n rounded down.
    expect(info.prices).toEqual(Array(n).fill(WAD / BigInt(n)));

    expect(await read('LmsrMarketFactory', env.factory[n], 'isMarket', [m.address])).toBe(true);
    expect(await read('TradeRouter', env.router[sym], 'isMarket', [m.address])).toBe(true);
    expect(await read('OutcomeToken', env.outcomeToken, 'outcomeCountOf', [m.address])).toBe(n);
    expect(await read('OutcomeToken', env.outcomeToken, 'factoryOf', [m.address])).toBe(env.factory[n]);
  });

  it('refuses terms outside the schedule, each with its own error', async () => {
    const f = env.factory[2];
    const t = await now();
    const ok = [env.token.USDC, keccak256('0x01'), t + DAY, RESOLUTION_WINDOW, FLOOR.USDC, PROTOCOL_FEE_BPS, 100, CREATION_BOND] as const;
    const withArg = (i: number, v: unknown) => ok.map((x, j) => (j === i ? v : x));
    const cases: [unknown[], string, unknown[]][] = [
      [withArg(0, env.outcomeToken), 'UnsupportedCollateral', [env.outcomeToken]],
      [withArg(4, FLOOR.USDC - 1n), 'LiquidityBelowFloor', [FLOOR.USDC - 1n, FLOOR.USDC]],
      [withArg(5, PROTOCOL_FEE_BPS + 1), 'ProtocolFeeMismatch', [PROTOCOL_FEE_BPS + 1, PROTOCOL_FEE_BPS]],
      [withArg(6, MAX_CREATOR_FEE_BPS + 1), 'CreatorFeeTooHigh', [MAX_CREATOR_FEE_BPS + 1, MAX_CREATOR_FEE_BPS]],
      [withArg(2, t), 'CloseTimeNotInFuture', [t]],
      [withArg(3, 3_599), 'ResolutionWindowOutOfRange', [3_599]],
      [withArg(3, 30 * 86_400 + 1), 'ResolutionWindowOutOfRange', [30 * 86_400 + 1]],
      [withArg(7, CREATION_BOND - 1n), 'BondAboveMax', [CREATION_BOND, CREATION_BOND - 1n]],
    ];
    for (const [args, errorName, errorArgs] of cases) {
      expect(await revertOf('LmsrMarketFactory', f, creator, 'createMarket', args)).toEqual({ errorName, args: errorArgs });
    }
    expect((await revertOf('LmsrMarketFactory', f, creator, 'setCreationBond', [0n])).errorName).toBe('OwnableUnauthorizedAccount');
    expect((await revertOf('LmsrMarketFactory', f, owner, 'setFeeSchedule', [700, 301])).errorName).toBe('FeeScheduleTooHigh');
    expect((await revertOf('LmsrMarketFactory', f, owner, 'setCollateral', [env.token.USDC, env.router.PM, 1n])).errorName).toBe('RouterCollateralMismatch');
  });

  it('only authorised factories register markets, and only registered markets mint their own ids', async () => {
    expect(await revertOf('OutcomeToken', env.outcomeToken, alice, 'registerMarket', [alice.address, 2])).toEqual({ errorName: 'NotFactory', args: [alice.address] });
    expect(await revertOf('OutcomeToken', env.outcomeToken, alice, 'mint', [alice.address, 0, 1n])).toEqual({ errorName: 'NotMarket', args: [alice.address] });
    expect(await revertOf('OutcomeToken', env.outcomeToken, alice, 'burn', [bob.address, 0, 1n])).toEqual({ errorName: 'NotMarket', args: [alice.address] });
    expect(await revertOf('TradeRouter', env.router.USDC, alice, 'registerMarket', [alice.address])).toEqual({ errorName: 'NotFactory', args: [alice.address] });
    expect((await revertOf('OutcomeToken', env.outcomeToken, alice, 'setFactory', [alice.address, true])).errorName).toBe('OwnableUnauthorizedAccount');
    expect((await revertOf('TradeRouter', env.router.USDC, alice, 'setFactory', [alice.address, true])).errorName).toBe('OwnableUnauthorizedAccount');
    // The implementation behind every clone cannot be initialized (or traded) itself.
    const { errorName } = await revertOf('LmsrMarket', env.implementation, alice, 'quoteBuy', [0, 1n]);
    expect(errorName).toBe('MarketClosed');
  });

  it('predicts the next market address per creator', async () => {
    const predicted = await read<Address>('LmsrMarketFactory', env.factory[3], 'nextMarketAddress', [creator.address]);
    const m = await createMarket(3, 'USDC');
    expect(m.address).toBe(predicted);
    expect(await read<Address>('LmsrMarketFactory', env.factory[3], 'nextMarketAddress', [creator.address])).not.toBe(predicted);
  });
});

describe("the creator's bond ceiling (maxBond)", () => {
  const createArgs = async (maxBond: bigint) => [env.token.USDC, keccak256(stringToHex(`bond ceiling ${++questionSeq}`)), (await now()) + DAY, RESOLUTION_WINDOW, FLOOR.USDC, PROTOCOL_FEE_BPS, 100, maxBond];

  it.each([
    ['equal to the bond', CREATION_BOND],
    ['one unit above the bond', CREATION_BOND + 1n],
    ['at the uint256 maximum', MAX_UINT],
  ] as const)('creates a market with maxBond %s and takes exactly the bond, not the ceiling', async (_, maxBond) => {
    const pmBefore = await balanceOf('PM', creator.address);
    const m = await createMarket(2, 'USDC', { maxBond });
    expect(m.bond).toBe(CREATION_BOND);
    expect(pmBefore - (await balanceOf('PM', creator.address))).toBe(CREATION_BOND);
    expect(await balanceOf('PM', m.address)).toBe(CREATION_BOND);
    expect(await read<bigint>('LmsrMarket', m.address, 'bond')).toBe(CREATION_BOND);
  });

  it.each([CREATION_BOND - 1n, 0n])('refuses maxBond %s, below the bond, with BondAboveMax(bond, maxBond)', async (maxBond) => {
    expect(await revertOf('LmsrMarketFactory', env.factory[2], creator, 'createMarket', await createArgs(maxBond))).toEqual({ errorName: 'BondAboveMax', args: [CREATION_BOND, maxBond] });
  });

  it('reverts a mined creation below the bond without moving any funds or using up the address', async () => {
    const f = env.factory[2];
    const predicted = await read<Address>('LmsrMarketFactory', f, 'nextMarketAddress', [creator.address]);
    const [usdcBefore, pmBefore] = [await balanceOf('USDC', creator.address), await balanceOf('PM', creator.address)];
    // An explicit gas limit skips estimation, so the refused transaction is mined and its receipt says reverted.
    const hash = await kit.wallet(creator).writeContract({ address: f, abi: abiWithAllErrors('LmsrMarketFactory'), functionName: 'createMarket', args: await createArgs(CREATION_BOND - 1n), gas: 1_000_000n });
    expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('reverted');
    expect([await balanceOf('USDC', creator.address), await balanceOf('PM', creator.address)]).toEqual([usdcBefore, pmBefore]);
    expect(await read<Address>('LmsrMarketFactory', f, 'nextMarketAddress', [creator.address])).toBe(predicted);
  });

  it('refuses a bond the owner raised after the quote, and takes a lowered one', async () => {
    const f = env.factory[2];
    const [, quoted] = await read<readonly [bigint, bigint]>('LmsrMarketFactory', f, 'quoteCreation', [FLOOR.USDC]);
    try {
      await send('LmsrMarketFactory', f, owner, 'setCreationBond', [quoted * 2n]);
      expect(await revertOf('LmsrMarketFactory', f, creator, 'createMarket', await createArgs(quoted))).toEqual({ errorName: 'BondAboveMax', args: [quoted * 2n, quoted] });

      await send('LmsrMarketFactory', f, owner, 'setCreationBond', [quoted / 2n]);
      const pmBefore = await balanceOf('PM', creator.address);
      const m = await createMarket(2, 'USDC', { maxBond: quoted });
      expect(m.bond).toBe(quoted / 2n);
      expect(pmBefore - (await balanceOf('PM', creator.address))).toBe(quoted / 2n);
    } finally {
      await send('LmsrMarketFactory', f, owner, 'setCreationBond', [CREATION_BOND]);
    }
  });
});

describe('trading through the router', () => {
  it.each(KINDS)('a %i-outcome %s buy charges exactly the quote and splits fees as configured', async (n, sym) => {
    const m = await createMarket(n, sym, { creatorFeeBps: 137 });
    const shares = m.liquidity / 3n;
    const treasuryBefore = await balanceOf(sym, treasury.address);
    const heldBefore = await balanceOf(sym, m.address);
    const { quote: q, paid, event, receipt } = await trade(m, alice, true, n - 1, shares);
    const label = `${n === 2 ? 'binary' : 'ternary'} ${sym}`;
    gas[`buy ${label} (first in market)`] = receipt.gasUsed;

    expect(paid).toBe(q.amount);
    const cost = q.amount - q.protocolFee - q.creatorFee;
    expect(q.protocolFee).toBe(ceilDiv(cost * BigInt(PROTOCOL_FEE_BPS), 10_000n));
    expect(q.creatorFee).toBe(ceilDiv(cost * 137n, 10_000n));
    expect(event).toMatchObject({ trader: alice.address, recipient: alice.address, outcome: n - 1, isBuy: true, shares, cost, protocolFee: q.protocolFee, creatorFee: q.creatorFee });
    expect(event.pricesAfter).toEqual(await prices(m));
    expect((await balanceOf(sym, treasury.address)) - treasuryBefore).toBe(q.protocolFee);
    expect((await balanceOf(sym, m.address)) - heldBefore).toBe(cost + q.creatorFee);
    expect(await creatorFees(m)).toBe(q.creatorFee);
    expect(await sharesOf(m, n - 1, alice.address)).toBe(shares);
    expect(await read('OutcomeToken', env.outcomeToken, 'tokenId', [m.address, n - 1])).toBe(tokenId(m, n - 1));
    // The LMSR cost b·ln(Σe^(q/b)) − b·ln(n), up to the rounding to a base unit (and float precision here).
    const b = Number(m.liquidity);
    const exact = b * Math.log((n - 1 + Math.exp(Number(shares) / b)) / n);
    expect(Math.abs(Number(cost) - exact)).toBeLessThanOrEqual(1 + exact * 1e-12);
    gas[`quoteBuy ${label} (eth_estimateGas)`] = await pub.estimateContractGas({ address: m.address, abi: abiWithAllErrors('LmsrMarket'), functionName: 'quoteBuy', args: [0, shares], account: alice });
    gas[`buy ${label} (again)`] = (await trade(m, alice, true, n - 1, shares)).receipt.gasUsed;
  });

  it.each(KINDS)('a %i-outcome %s sell pays exactly the quote, burns the shares and sends the protocol fee', async (n, sym) => {
    const m = await createMarket(n, sym, { creatorFeeBps: 200 });
    await trade(m, alice, true, 0, m.liquidity);
    const treasuryBefore = await balanceOf(sym, treasury.address);
    const feesBefore = await creatorFees(m);
    const shares = m.liquidity / 2n;
    const { quote: q, received, event, receipt } = await trade(m, alice, false, 0, shares);
    gas[`sell ${n === 2 ? 'binary' : 'ternary'} ${sym}`] ??= receipt.gasUsed;

    expect(received).toBe(q.amount);
    const gross = q.amount + q.protocolFee + q.creatorFee;
    expect(event).toMatchObject({ isBuy: false, shares, cost: gross, protocolFee: q.protocolFee, creatorFee: q.creatorFee });
    expect(q.protocolFee).toBe(ceilDiv(gross * BigInt(PROTOCOL_FEE_BPS), 10_000n));
    expect(q.creatorFee).toBe(ceilDiv(gross * 200n, 10_000n));
    expect((await balanceOf(sym, treasury.address)) - treasuryBefore).toBe(q.protocolFee);
    expect((await creatorFees(m)) - feesBefore).toBe(q.creatorFee);
    expect(await sharesOf(m, 0, alice.address)).toBe(m.liquidity - shares);
    expect(await sharesOf(m, 0, m.address)).toBe(0n);
    expect((await outstanding(m))[0]).toBe(m.liquidity - shares);
  });

  it.each(KINDS)('selling the shares just bought in a %i-outcome %s market never returns more than was paid', async (n, sym) => {
    const m = await createMarket(n, sym, { creatorFeeBps: 0 });
    // Some prior flow so the round trips start away from the uniform state.
    await trade(m, bob, true, 1, m.liquidity / 2n);
    const sizes = [1n, 7n, UNIT[sym], m.liquidity / 10n, m.liquidity * 2n];
    for (const [i, shares] of sizes.entries()) {
      const outcome = i % n;
      const bought = await trade(m, alice, true, outcome, shares);
      const sellQuote = await quote(m, false, outcome, shares).catch(() => undefined);
      if (!sellQuote) {
        // Too small to pay anything after rounding: the sell is refused, and the buyer still paid ≥ 1 base unit.
        expect((await revertOf('LmsrMarket', m.address, alice, 'quoteSell', [outcome, shares])).errorName).toBe('ZeroProceeds');
        expect(bought.paid).toBeGreaterThanOrEqual(1n);
        continue;
      }
      const sold = await trade(m, alice, false, outcome, shares);
      expect(sold.received).toBeLessThanOrEqual(bought.paid);
      // Without fees the LMSR is path-independent: the round trip loses only rounding (and the protocol fee).
      const fees = bought.quote.protocolFee + sold.quote.protocolFee;
      expect(bought.paid - sold.received - fees).toBeLessThanOrEqual(2n);
    }
    await expectSolvent(m);
  });

  it('executes a basket across markets all or nothing', async () => {
    const a = await createMarket(2, 'USDC');
    const c = await createMarket(3, 'USDC');
    const qa = await quote(a, true, 0, a.liquidity);
    const qc = await quote(c, true, 2, c.liquidity / 4n);
    const good = [await intent(a, 0, true, a.liquidity, qa.amount, alice.address), await intent(c, 2, true, c.liquidity / 4n, qc.amount, bob.address)];
    const bad = [good[0], { ...good[1]!, limit: qc.amount - 1n }];
    expect(await revertOf('TradeRouter', env.router.USDC, alice, 'executeBasketIntent', [bad])).toEqual({ errorName: 'SlippageExceeded', args: [qc.amount, qc.amount - 1n] });
    expect(await revertOf('TradeRouter', env.router.USDC, alice, 'executeBasketIntent', [[]])).toEqual({ errorName: 'EmptyBasket', args: [] });

    const before = await balanceOf('USDC', alice.address);
    const { result } = await pub.simulateContract({ address: env.router.USDC, abi: abiWithAllErrors('TradeRouter'), functionName: 'executeBasketIntent', args: [good], account: alice });
    expect(result).toEqual([qa.amount, qc.amount]);
    const receipt = await send('TradeRouter', env.router.USDC, alice, 'executeBasketIntent', [good]);
    gas['basket of 2 buys USDC'] = receipt.gasUsed;
    expect(before - (await balanceOf('USDC', alice.address))).toBe(qa.amount + qc.amount);
    expect(await sharesOf(a, 0, alice.address)).toBe(a.liquidity);
    expect(await sharesOf(c, 2, bob.address)).toBe(c.liquidity / 4n);
    expect(tradeEvents(receipt).map((e) => e.trader)).toEqual([alice.address, alice.address]);
  });

  it('keeps trading markets whose factory was later deauthorised', async () => {
    const m = await createMarket(2, 'PM');
    await send('TradeRouter', env.router.PM, owner, 'setFactory', [env.factory[2], false]);
    try {
      const t = await now();
      const refused = await revertOf('LmsrMarketFactory', env.factory[2], creator, 'createMarket', [env.token.PM, keccak256('0x02'), t + DAY, RESOLUTION_WINDOW, FLOOR.PM, PROTOCOL_FEE_BPS, 0, CREATION_BOND]);
      expect(refused).toEqual({ errorName: 'NotFactory', args: [env.factory[2]] });
      const { paid, quote: q } = await trade(m, alice, true, 1, UNIT.PM);
      expect(paid).toBe(q.amount);
    } finally {
      await send('TradeRouter', env.router.PM, owner, 'setFactory', [env.factory[2], true]);
    }
  });
});

describe('bounds and refusals', () => {
  let m: Market;
  beforeAll(async () => {
    m = await createMarket(2, 'USDC');
    await trade(m, alice, true, 0, m.liquidity);
  });

  it('refuses a buy above its max cost and a sell below its min proceeds with SlippageExceeded', async () => {
    const qb = await quote(m, true, 1, UNIT.USDC * 5n);
    expect(await revertOf('TradeRouter', env.router.USDC, alice, 'executeTradeIntent', [await intent(m, 1, true, UNIT.USDC * 5n, qb.amount - 1n, alice.address)])).toEqual({
      errorName: 'SlippageExceeded',
      args: [qb.amount, qb.amount - 1n],
    });
    const qs = await quote(m, false, 0, UNIT.USDC * 5n);
    expect(await revertOf('TradeRouter', env.router.USDC, alice, 'executeTradeIntent', [await intent(m, 0, false, UNIT.USDC * 5n, qs.amount + 1n, alice.address)])).toEqual({
      errorName: 'SlippageExceeded',
      args: [qs.amount, qs.amount + 1n],
    });
  });

  it('refuses malformed intents: expired, unknown market, wrong collateral router, zero recipient, zero shares, bad outcome', async () => {
    const ok = await intent(m, 1, true, UNIT.USDC, MAX_UINT, alice.address);
    const t = await now();
    const cases: [TradeIntentLike, Address, string, unknown[]][] = [
      [{ ...ok, deadline: t - 1n }, env.router.USDC, 'DeadlineExpired', [t - 1n]],
      [{ ...ok, market: env.implementation }, env.router.USDC, 'UnknownMarket', [env.implementation]],
      [ok, env.router.PM, 'UnknownMarket', [m.address]],
      [{ ...ok, recipient: '0x0000000000000000000000000000000000000000' }, env.router.USDC, 'ZeroRecipient', []],
      [{ ...ok, shares: 0n }, env.router.USDC, 'ZeroShares', []],
      [{ ...ok, outcome: 2 }, env.router.USDC, 'InvalidOutcome', [2, 2]],
    ];
    for (const [i, router, errorName, args] of cases) {
      expect(await revertOf('TradeRouter', router, alice, 'executeTradeIntent', [i])).toEqual({ errorName, args });
    }
    expect(await revertOf('LmsrMarket', m.address, alice, 'quoteSell', [0, m.liquidity + 1n])).toEqual({ errorName: 'SharesExceedOutstanding', args: [m.liquidity + 1n, m.liquidity] });
    expect(await revertOf('LmsrMarket', m.address, alice, 'quoteSell', [0, 1n])).toEqual({ errorName: 'ZeroProceeds', args: [] });
  });

  it('lets only the router trade, and refuses shares sent to the market directly', async () => {
    expect(await revertOf('LmsrMarket', m.address, alice, 'buy', [alice.address, alice.address, 0, 1n, MAX_UINT])).toEqual({ errorName: 'NotRouter', args: [alice.address] });
    expect(await revertOf('LmsrMarket', m.address, alice, 'sell', [alice.address, alice.address, 0, 1n, 0n])).toEqual({ errorName: 'NotRouter', args: [alice.address] });
    expect(await revertOf('OutcomeToken', env.outcomeToken, alice, 'safeTransferFrom', [alice.address, m.address, tokenId(m, 0), 1n, '0x'])).toEqual({
      errorName: 'UnexpectedShares',
      args: [alice.address],
    });
    expect(await revertOf('LmsrMarket', m.address, creator, 'collectCreatorFees', [])).toEqual({ errorName: 'CreatorFeesLocked', args: [0] });
    expect(await revertOf('LmsrMarket', m.address, alice, 'collectCreatorFees', [])).toEqual({ errorName: 'CreatorFeesLocked', args: [0] }); // anyone may send it; it pays only the creator
  });

  it('needs the collateral approval for buys and the ERC-1155 approval for sells', async () => {
    const carol = privateKeyToAccount(anvilDevAccounts()[5]!);
    await send('TestUSDC', env.token.USDC, owner, 'mint', [carol.address, UNIT.USDC * 100n]);
    const buy = await intent(m, 1, true, UNIT.USDC, MAX_UINT, carol.address);
    expect((await revertOf('TradeRouter', env.router.USDC, carol, 'executeTradeIntent', [buy])).errorName).toBe('ERC20InsufficientAllowance');
    await send('TestUSDC', env.token.USDC, carol, 'approve', [env.router.USDC, MAX_UINT]);
    await send('TradeRouter', env.router.USDC, carol, 'executeTradeIntent', [buy]);
    const sell = await intent(m, 1, false, UNIT.USDC, 0n, carol.address);
    expect(await revertOf('TradeRouter', env.router.USDC, carol, 'executeTradeIntent', [sell])).toEqual({ errorName: 'ERC1155MissingApprovalForAll', args: [env.router.USDC, carol.address] });
    await send('OutcomeToken', env.outcomeToken, carol, 'setApprovalForAll', [env.router.USDC, true]);
    await send('TradeRouter', env.router.USDC, carol, 'executeTradeIntent', [sell]);
    expect(await sharesOf(m, 1, carol.address)).toBe(0n);
  });

  it('keeps every price within [0.001, 0.999] by refusing trades that would leave the band', async () => {
    // Binary: p0 ≤ 0.999 ⇔ q0 − q1 ≤ b·ln(999) ≈ 6.9068·b.
    const q = await outstanding(m);
    const room = (m.liquidity * 69068n) / 10_000n - (q[0]! - q[1]!);
    const over = await revertOf('LmsrMarket', m.address, alice, 'quoteBuy', [0, room + m.liquidity / 100n]);
    expect(over.errorName).toBe('PriceOutOfBand');
    expect(over.args?.[0]).toBe(1);
    const { paid } = await trade(m, alice, true, 0, room - m.liquidity / 100n);
    expect(paid).toBeGreaterThan(0n);
    const p = await prices(m);
    expect(p[1]).toBeGreaterThanOrEqual(MIN_PRICE);
    expect(p[0]).toBeGreaterThan(998n * 10n ** 15n);
  });

  it('stops trading and quoting at close time', async () => {
    const closing = await createMarket(3, 'PM', { closeIn: 7_200n });
    await trade(closing, alice, true, 0, UNIT.PM);
    await rpc(anvil.rpcUrl, 'evm_increaseTime', [7_200]);
    await rpc(anvil.rpcUrl, 'evm_mine');
    expect(await read('LmsrMarket', closing.address, 'state')).toBe(1);
    expect(await revertOf('LmsrMarket', closing.address, alice, 'quoteBuy', [0, UNIT.PM])).toEqual({ errorName: 'MarketClosed', args: [closing.closeTime] });
    const sell = await intent(closing, 0, false, UNIT.PM, 0n, alice.address);
    expect(await revertOf('TradeRouter', env.router.PM, alice, 'executeTradeIntent', [sell])).toEqual({ errorName: 'MarketClosed', args: [closing.closeTime] });
    // Prices stay readable for the record.
    expect((await prices(closing)).length).toBe(3);
  });
});

type TradeIntentLike = Awaited<ReturnType<typeof intent>>;

describe('maker loss and invariants', () => {
  it.each(KINDS)('the %i-outcome %s maker never loses more than the b·ln(n) subsidy', async (n, sym) => {
    const m = await createMarket(n, sym);
    // Push outcome 0 to the edge of the price band, the most the maker can be made to owe.
    let netCost = 0n;
    for (;;) {
      const shares = m.liquidity / 2n;
      const ok = await quote(m, true, 0, shares).then(
        () => true,
        () => false,
      );
      if (!ok) break;
      const { event } = await trade(m, alice, true, 0, shares);
      netCost += event.cost;
    }
    const q = await outstanding(m);
    for (const owed of q) expect(owed - netCost).toBeLessThanOrEqual(m.subsidy);
    // Near the band the loss is close to the bound: b·(ln n + ln p0) with p0 ≈ 0.999.
    expect(Number(q[0]! - netCost)).toBeGreaterThan(0.99 * Number(m.subsidy));
    await expectSolvent(m);
  });

  it.each(KINDS)('prices of a %i-outcome %s market stay in (0,1) and sum to 1 after every trade', async (n, sym) => {
    const m = await createMarket(n, sym);
    const steps: [PrivateKeyAccount, boolean, number, bigint][] = [
      [alice, true, 0, m.liquidity],
      [bob, true, n - 1, m.liquidity * 3n],
      [alice, true, 1, 1n],
      [bob, false, n - 1, m.liquidity],
      [alice, false, 0, m.liquidity / 3n],
      [bob, true, 0, m.liquidity / 7n],
    ];
    expectPriceInvariants(await prices(m), await outstanding(m), m.liquidity);
    for (const [who, isBuy, outcome, shares] of steps) {
      const { event } = await trade(m, who, isBuy, outcome, shares);
      const q = await outstanding(m);
      expect(event.pricesAfter).toEqual(await prices(m));
      expectPriceInvariants(event.pricesAfter, q, m.liquidity);
    }
  });
});

// Three runs of 14–18 random operations per market kind: ~0.2 s a run on an idle machine, under 1 s on a third of
// one core. Each run has its own deadline (fc.timeout), far above that, so a stuck run fails with the seed and
// path that replay it instead of running into the test timeout, which is sized from the runs and that deadline.
// MARKET_PROPERTY_RUNS raises the runs for a longer soak (docs/testing.md).
const PROPERTY_RUNS = Number(process.env.MARKET_PROPERTY_RUNS ?? 3);
if (!Number.isSafeInteger(PROPERTY_RUNS) || PROPERTY_RUNS < 1) throw new Error(`MARKET_PROPERTY_RUNS must be a positive integer, got ${process.env.MARKET_PROPERTY_RUNS}`);
const PROPERTY_RUN_DEADLINE_MS = 20_000;
const PROPERTY_TIMEOUT_MS = PROPERTY_RUNS * PROPERTY_RUN_DEADLINE_MS + 30_000;

describe('property: random trades keep the market solvent and quotes exact', () => {
  const sizeArb = fc.oneof(fc.record({ raw: fc.bigInt({ min: 1n, max: 40n }) }), fc.record({ permille: fc.integer({ min: 1, max: 1_500 }) }));
  const opArb = fc.record({ isBuy: fc.boolean(), trader: fc.constantFrom(0, 1), outcome: fc.nat({ max: 2 }), size: sizeArb });

  it.each(KINDS)('%i-outcome %s', { timeout: PROPERTY_TIMEOUT_MS }, async (n, sym) => {
    let trades = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 14, maxLength: 18 }), async (ops) => {
        const m = await createMarket(n, sym, { liquidity: FLOOR[sym] * 3n, creatorFeeBps: 75 });
        let booked = m.subsidy + (sym === 'PM' ? m.bond : 0n);
        // Only trades through the router move this market, so what the last trade left is the state before the next.
        let qBefore = await outstanding(m);
        let feesBefore = await creatorFees(m);
        for (const op of ops) {
          const who = traders[op.trader]!;
          const outcome = op.outcome % n;
          let shares: bigint;
          if (op.isBuy) shares = 'raw' in op.size ? op.size.raw : (m.liquidity * BigInt(op.size.permille)) / 1_000n;
          else {
            const holding = await sharesOf(m, outcome, who.address);
            if (holding === 0n) continue;
            shares = 'raw' in op.size ? (op.size.raw < holding ? op.size.raw : holding) : (holding * BigInt(Math.min(op.size.permille, 1_000))) / 1_000n || 1n;
          }
          if (shares === 0n) continue;

          const q = await quote(m, op.isBuy, outcome, shares).catch(() => undefined);
          if (!q) {
            // A refused quote means the trade is refused too, for the same reason.
            const quoted = await revertOf('LmsrMarket', m.address, who, op.isBuy ? 'quoteBuy' : 'quoteSell', [outcome, shares]);
            expect(['PriceOutOfBand', 'ZeroProceeds']).toContain(quoted.errorName);
            const i = await intent(m, outcome, op.isBuy, shares, op.isBuy ? MAX_UINT : 0n, who.address);
            expect((await revertOf('TradeRouter', env.router[sym], who, 'executeTradeIntent', [i])).errorName).toBe(quoted.errorName);
            continue;
          }
          const { paid, received, event } = await trade(m, who, op.isBuy, outcome, shares);
          trades++;

          // Charged exactly the quote, and the event says the same.
          expect(op.isBuy ? paid : received).toBe(q.amount);
          expect(event.protocolFee).toBe(q.protocolFee);
          expect(event.creatorFee).toBe(q.creatorFee);
          expect(event.pricesAfter).toEqual(q.pricesAfter);
          expect(op.isBuy ? event.cost + q.protocolFee + q.creatorFee : event.cost - q.protocolFee - q.creatorFee).toBe(q.amount);
          const feesAfter = await creatorFees(m);
          expect(feesAfter - feesBefore).toBe(q.creatorFee);

          const qAfter = await outstanding(m);
          expect(qAfter[outcome]).toBe(op.isBuy ? qBefore[outcome]! + shares : qBefore[outcome]! - shares);

          // Exact accounting of what the market holds, and that it covers the worst outcome (what expectSolvent
          // checks, on the values just read).
          booked += op.isBuy ? event.cost + event.creatorFee : event.creatorFee - event.cost;
          const held = await balanceOf(sym, m.address);
          expect(held).toBe(booked);
          expect(held).toBeGreaterThanOrEqual(max(qAfter) + feesAfter + (sym === 'PM' ? m.bond : 0n));
          expectPriceInvariants(event.pricesAfter, qAfter, m.liquidity);
          [qBefore, feesBefore] = [qAfter, feesAfter];
        }
      }),
      replayable({ numRuns: PROPERTY_RUNS, endOnFailure: true, plugins: [fc.timeout(PROPERTY_RUN_DEADLINE_MS)] }),
    );
    expect(trades).toBeGreaterThan(15);
  });
});

describe('artifacts of the market contracts', () => {
  it.each(['OutcomeToken', 'LmsrMarket', 'LmsrMarketFactory', 'TradeRouter'] as const)('%s runtimeCodeHash matches the deployed code once immutables are masked', async (name) => {
    const address = { OutcomeToken: env.outcomeToken, LmsrMarket: env.implementation, LmsrMarketFactory: env.factory[2], TradeRouter: env.router.USDC }[name];
    const code = await pub.getCode({ address });
    if (!code) throw new Error('no code');
    const artifact = loadArtifact(name);
    expect(runtimeCodeHashOf(artifact, code)).toBe(artifact.runtimeCodeHash);
  });

  it('publishes the router functions under stable signatures and selectors', () => {
    const fns = loadArtifact('TradeRouter').abi.filter((i): i is AbiFunction => i.type === 'function' && i.name.startsWith('execute'));
    const published = Object.fromEntries(fns.map((f) => [f.name, toFunctionSelector(f)]));
    expect(published).toEqual({
      executeTradeIntent: toFunctionSelector('executeTradeIntent((address,uint8,bool,uint256,uint256,uint256,address))'),
      executeBasketIntent: toFunctionSelector('executeBasketIntent((address,uint8,bool,uint256,uint256,uint256,address)[])'),
    });
  });
});
