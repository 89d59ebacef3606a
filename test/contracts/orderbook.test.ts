// Deploys the order-book registry (OrderBookMarket implementation and OrderBookMarketFactory) from the committed
// artifacts onto a fresh anvil and checks market ids, the MarketCreated event, the clones' records and every refusal
// against real receipts. Nothing is mocked.
import {
  getContractAddress,
  keccak256,
  parseEventLogs,
  stringToHex,
  toEventSelector,
  toFunctionSelector,
  zeroAddress,
  type Address,
  type Hex,
  type PrivateKeyAccount,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractKit } from '../support/contract-kit.ts';
import { anvilDevAccounts, startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { abiWithAllErrors, loadArtifact, runtimeCodeHashOf, type ContractName } from '../../src/chain/artifacts.ts';

const [ownerKey, aliceKey, bobKey] = anvilDevAccounts() as [Hex, Hex, Hex];
const owner = privateKeyToAccount(ownerKey);
const alice = privateKeyToAccount(aliceKey);
const bob = privateKeyToAccount(bobKey);

const DAY = 86_400n;
const WINDOW = 3 * 86_400;

let anvil: AnvilHandle;
let pub: ReturnType<typeof contractKit>['pub'];
let implementation: Address;
let factory: Address;

// Clients and helpers over the committed artifacts (test/support/contract-kit.ts), bound in beforeAll.
let kit: ReturnType<typeof contractKit>;
const wallet = (account: PrivateKeyAccount) => kit.wallet(account);
const deploy = (name: ContractName, args: readonly unknown[]) => kit.deploy(name, args);
const read = <T>(name: ContractName, address: Address, functionName: string, args: readonly unknown[] = []) => kit.read<T>(name, address, functionName, args);
const send = (name: ContractName, address: Address, from: PrivateKeyAccount, functionName: string, args: readonly unknown[]) => kit.send(name, address, from, functionName, args);
const revertOf = (name: ContractName, address: Address, from: PrivateKeyAccount, functionName: string, args: readonly unknown[]) => kit.revertOf(name, address, from, functionName, args);
const now = () => kit.now();

interface Created {
  market: Address;
  creator: Address;
  marketId: bigint;
  questionHash: Hex;
  closeTime: bigint;
  resolutionWindowSeconds: number;
  receipt: TransactionReceipt;
}

/** Creates a market as `from`, checks the call's return value against its event, and returns the event's fields. */
async function createMarket(from: PrivateKeyAccount, question: string, closeIn = 7n * DAY, window = WINDOW): Promise<Created> {
  const args = [keccak256(stringToHex(question)), (await now()) + closeIn, window] as const;
  const { result } = await pub.simulateContract({ address: factory, abi: abiWithAllErrors('OrderBookMarketFactory'), functionName: 'createMarket', args, account: from });
  const receipt = await send('OrderBookMarketFactory', factory, from, 'createMarket', args);
  const logs = parseEventLogs({ abi: loadArtifact('OrderBookMarketFactory').abi, logs: receipt.logs, eventName: 'MarketCreated' });
  expect(logs).toHaveLength(1);
  const event = logs[0]!.args as unknown as Omit<Created, 'receipt'>;
  // Nothing else was created in between, so the simulated return is what the transaction returned.
  expect(result).toEqual([event.market, event.marketId]);
  return { ...event, receipt };
}

beforeAll(async () => {
  anvil = await startAnvil();
  kit = contractKit(anvil.rpcUrl, owner);
  pub = kit.pub;
  // The resolver is a constructor argument of the implementation; resolution itself is test/contracts/resolution.test.ts.
  const pm = await deploy('ParticipationToken', [owner.address, 10n ** 27n]);
  const resolver = await deploy('MarketResolver', [owner.address, pm, 10n ** 20n, 7_200, 86_400, false]);
  implementation = await deploy('OrderBookMarket', [resolver]);
  factory = await deploy('OrderBookMarketFactory', [implementation, owner.address]);
});

afterAll(async () => {
  await anvil?.stop();
});

describe('order-book market registry', () => {
  it('numbers markets from 1 up, one per creation, whoever creates them', async () => {
    expect(await read('OrderBookMarketFactory', factory, 'marketCount')).toBe(0n);
    const created = [await createMarket(alice, 'q1'), await createMarket(bob, 'q2'), await createMarket(alice, 'q3')];
    expect(created.map((c) => c.marketId)).toEqual([1n, 2n, 3n]);
    expect(created.map((c) => c.creator)).toEqual([alice.address, bob.address, alice.address]);
    expect(new Set(created.map((c) => c.market)).size).toBe(3);
    expect(await read('OrderBookMarketFactory', factory, 'marketCount')).toBe(3n);
  });

  it('emits MarketCreated with the market, its creator, its id and its terms', async () => {
    const t = await now();
    const questionHash = keccak256(stringToHex('Will it rain in Lisbon on 1 June?'));
    const receipt = await send('OrderBookMarketFactory', factory, bob, 'createMarket', [questionHash, t + 2n * DAY, 3_600]);
    const [log] = parseEventLogs({ abi: loadArtifact('OrderBookMarketFactory').abi, logs: receipt.logs, eventName: 'MarketCreated' });
    const marketId = await read<bigint>('OrderBookMarketFactory', factory, 'marketCount');
    expect(log!.address).toBe(factory.toLowerCase());
    expect(log!.args).toEqual({ market: await read('OrderBookMarketFactory', factory, 'marketOf', [marketId]), creator: bob.address, marketId, questionHash, closeTime: t + 2n * DAY, resolutionWindowSeconds: 3_600 });
    // The exact signature docs/contracts.md publishes; market, creator and marketId are the three indexed topics.
    const signature = 'MarketCreated(address,address,uint64,bytes32,uint64,uint32)';
    expect(log!.topics[0]).toBe(toEventSelector(signature));
    expect(log!.topics[3]).toBe(`0x${marketId.toString(16).padStart(64, '0')}`);
    console.info(`createMarket gas: ${receipt.gasUsed}; MarketCreated topic0: ${toEventSelector(signature)}`);
  });

  it('records the terms in a minimal-proxy clone of the implementation', async () => {
    const c = await createMarket(alice, 'clone views', 30n * DAY, 86_400);
    const view = <T>(fn: string) => read<T>('OrderBookMarket', c.market, fn);
    expect(await view('marketId')).toBe(c.marketId);
    expect(await view('creator')).toBe(alice.address);
    expect(await view('questionHash')).toBe(keccak256(stringToHex('clone views')));
    expect(await view('closeTime')).toBe(c.closeTime);
    expect(await view('resolutionWindowSeconds')).toBe(86_400);
    expect(await view('factory')).toBe(factory);
    expect(await view('outcomeCount')).toBe(2);
    expect(await view('pricingModel')).toBe('ORDERBOOK');
    expect(await view('marketInfo')).toEqual({
      factory,
      creator: alice.address,
      marketId: c.marketId,
      outcomeCount: 2,
      questionHash: keccak256(stringToHex('clone views')),
      closeTime: c.closeTime,
      resolutionWindowSeconds: 86_400,
    });
    // EIP-1167: 45 bytes delegating to the implementation.
    const code = (await pub.getCode({ address: c.market }))!;
    expect(code).toBe(`0x363d3d373d3d3d363d73${implementation.slice(2).toLowerCase()}5af43d82803e903d91602b57fd5bf3`);
    // CREATE from a factory that creates nothing else: market k sits at the factory's nonce k.
    expect(c.market).toBe(getContractAddress({ from: factory, nonce: c.marketId }));
  });

  it('initializes a clone only once and never the implementation', async () => {
    const c = await createMarket(alice, 'init once');
    const again = [99n, bob.address, keccak256('0x01'), (await now()) + DAY, WINDOW];
    expect(await revertOf('OrderBookMarket', c.market, alice, 'initialize', again)).toEqual({ errorName: 'InvalidInitialization', args: [] });
    expect(await revertOf('OrderBookMarket', c.market, owner, 'initialize', again)).toEqual({ errorName: 'InvalidInitialization', args: [] });
    expect(await revertOf('OrderBookMarket', implementation, alice, 'initialize', again)).toEqual({ errorName: 'InvalidInitialization', args: [] });
    expect(await read('OrderBookMarket', implementation, 'marketId')).toBe(0n);
    expect(await read('OrderBookMarket', c.market, 'creator')).toBe(alice.address);
  });

  it('refuses a close time not in the future and a zero resolution window, each with its own error', async () => {
    const t = await now();
    const q = keccak256('0x02');
    expect(await revertOf('OrderBookMarketFactory', factory, alice, 'createMarket', [q, t, WINDOW])).toEqual({ errorName: 'CloseTimeNotInFuture', args: [t] });
    expect(await revertOf('OrderBookMarketFactory', factory, alice, 'createMarket', [q, 0n, WINDOW])).toEqual({ errorName: 'CloseTimeNotInFuture', args: [0n] });
    expect(await revertOf('OrderBookMarketFactory', factory, alice, 'createMarket', [q, t + DAY, 0])).toEqual({ errorName: 'ZeroResolutionWindow', args: [] });
    // Refusals consume no id.
    const before = await read<bigint>('OrderBookMarketFactory', factory, 'marketCount');
    expect((await createMarket(alice, 'after refusals', 1n * DAY, 1)).marketId).toBe(before + 1n);
  });

  it('maps ids to markets and back, and knows only its own markets', async () => {
    const count = await read<bigint>('OrderBookMarketFactory', factory, 'marketCount');
    for (let id = 1n; id <= count; id++) {
      const market = await read<Address>('OrderBookMarketFactory', factory, 'marketOf', [id]);
      expect(market).not.toBe(zeroAddress);
      expect(await read('OrderBookMarketFactory', factory, 'isMarket', [market])).toBe(true);
      expect(await read('OrderBookMarketFactory', factory, 'marketIdOf', [market])).toBe(id);
      expect(await read('OrderBookMarket', market, 'marketId')).toBe(id);
    }
    for (const id of [0n, count + 1n, 2n ** 64n - 1n]) expect(await read('OrderBookMarketFactory', factory, 'marketOf', [id])).toBe(zeroAddress);
    for (const stranger of [implementation, factory, alice.address, zeroAddress]) {
      expect(await read('OrderBookMarketFactory', factory, 'isMarket', [stranger])).toBe(false);
      expect(await read('OrderBookMarketFactory', factory, 'marketIdOf', [stranger])).toBe(0n);
    }
  });

  it('names its implementation and owner, and refuses a zero implementation', async () => {
    expect(await read('OrderBookMarketFactory', factory, 'implementation')).toBe(implementation);
    expect(await read('OrderBookMarketFactory', factory, 'owner')).toBe(owner.address);
    const { abi, bytecode } = loadArtifact('OrderBookMarketFactory');
    // viem does not decode a constructor's revert, so match the error's selector.
    expect(abi).toContainEqual({ type: 'error', name: 'ZeroAddress', inputs: [] });
    await expect(wallet(owner).deployContract({ abi, bytecode, args: [zeroAddress, owner.address] })).rejects.toThrow(toFunctionSelector('ZeroAddress()'));
  });
});

describe('artifacts of the order-book contracts', () => {
  it.each(['OrderBookMarket', 'OrderBookMarketFactory'] as const)('%s runtimeCodeHash matches the deployed code once immutables are masked', async (name) => {
    const code = await pub.getCode({ address: name === 'OrderBookMarket' ? implementation : factory });
    const artifact = loadArtifact(name);
    expect(runtimeCodeHashOf(artifact, code!)).toBe(artifact.runtimeCodeHash);
  });
});
