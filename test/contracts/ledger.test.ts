// Deploys LedgerCommitment from its committed artifact onto a fresh anvil and checks its batch rules, the custom
// errors and their arguments, the journal chain, and that the legacy TransferSingle events are exactly the balance
// movements of each match and credit. LedgerProofVerifier (test-only, no artifact) is compiled here with solc-js.
import {
  BaseError,
  ContractFunctionRevertedError,
  concat,
  createPublicClient,
  createWalletClient,
  encodePacked,
  getAddress,
  http,
  keccak256,
  parseEventLogs,
  stringToHex,
  type Abi,
  type Address,
  type Hex,
  type PrivateKeyAccount,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileVerifier } from '../support/ledger-verifier.ts';
import { anvilDevAccounts, startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { COLLATERAL_ASSET, CREDIT_REASONS, MATCH_KINDS, SUPPLY_ACCOUNT, outcomeAsset, type Credit, type Match } from '../../src/core/ledger/types.ts';

const [operatorKey, strangerKey] = anvilDevAccounts() as [Hex, Hex];
const operator = privateKeyToAccount(operatorKey);
const stranger = privateKeyToAccount(strangerKey);
// Ledger accounts never sign anything: any distinct addresses do.
const alice = getAddress('0x00000000000000000000000000000000000a11ce');
const bob = getAddress('0x0000000000000000000000000000000000000b0b');
const carol = getAddress('0x00000000000000000000000000000000000ca201');
const dave = getAddress('0x0000000000000000000000000000000000000da7');
const ZERO = getAddress(SUPPLY_ACCOUNT);
const ZERO_HASH: Hex = `0x${'00'.repeat(32)}`;
const INT128_MIN = -(2n ** 127n);
const INT128_MAX = 2n ** 127n - 1n;

const chain = { ...foundry, id: 8453 };
const ledgerAbi = loadArtifact('LedgerCommitment').abi;
let anvil: AnvilHandle;
let pub: ReturnType<typeof makePublic>;
const gas: Record<string, bigint> = {};

function makePublic(rpcUrl: string) {
  // anvil mines on every transaction; poll receipts quickly instead of viem's 4 s default.
  return createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 20 });
}
function wallet(account: PrivateKeyAccount) {
  return createWalletClient({ chain, transport: http(anvil.rpcUrl), account, pollingInterval: 20 });
}

async function deployCode(abi: Abi, bytecode: Hex, args: readonly unknown[]): Promise<Address> {
  const hash = await wallet(operator).deployContract({ abi, bytecode, args });
  const receipt = await pub.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress || receipt.status !== 'success') throw new Error('deployment failed');
  return getAddress(receipt.contractAddress);
}

function deployLedger(): Promise<Address> {
  return deployCode(ledgerAbi, loadArtifact('LedgerCommitment').bytecode, [operator.address]);
}

function read<T>(ledger: Address, functionName: 'batchNonce' | 'ledgerRoot' | 'operator' | 'journalCommitment'): Promise<T> {
  return pub.readContract({ address: ledger, abi: ledgerAbi, functionName }) as Promise<T>;
}

async function state(ledger: Address) {
  return {
    nonce: await read<bigint>(ledger, 'batchNonce'),
    root: await read<Hex>(ledger, 'ledgerRoot'),
    journal: await read<Hex>(ledger, 'journalCommitment'),
  };
}

async function send(ledger: Address, functionName: 'commitBatch' | 'commitJournalBatch', args: readonly unknown[]): Promise<TransactionReceipt> {
  const hash = await wallet(operator).writeContract({ address: ledger, abi: ledgerAbi, functionName, args });
  const receipt = await pub.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

/** Runs the call via eth_call and returns the decoded custom error it reverts with. */
async function revertOf(ledger: Address, functionName: 'commitBatch' | 'commitJournalBatch', args: readonly unknown[], from: PrivateKeyAccount = operator) {
  try {
    await pub.simulateContract({ address: ledger, abi: ledgerAbi, functionName, args, account: from });
  } catch (err) {
    const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
    if (reverted instanceof ContractFunctionRevertedError) return { errorName: reverted.data?.errorName, args: reverted.data?.args ?? [] };
    throw err;
  }
  throw new Error(`${functionName} did not revert`);
}

let rootSeq = 0;
function freshRoot(): Hex {
  return keccak256(stringToHex(`root ${++rootSeq}`));
}

interface Batch {
  matches?: readonly Match[];
  credits?: readonly Credit[];
  emitEvents?: boolean;
}

/** commitBatch arguments for the next batch on the ledger's current state. */
async function nextBatch(ledger: Address, batch: Batch, newRoot: Hex = freshRoot()): Promise<readonly unknown[]> {
  const { nonce, root } = await state(ledger);
  return [nonce + 1n, root, newRoot, batch.matches ?? [], batch.credits ?? [], batch.emitEvents ?? true];
}

async function commitBatch(ledger: Address, batch: Batch, newRoot?: Hex): Promise<TransactionReceipt> {
  return send(ledger, 'commitBatch', await nextBatch(ledger, batch, newRoot));
}

/** commitJournalBatch arguments for the next batch, chained on the ledger's current journal commitment. */
async function nextJournal(ledger: Address, payload: Hex, newRoot: Hex = freshRoot()): Promise<readonly unknown[]> {
  const { nonce, root, journal } = await state(ledger);
  return [nonce + 1n, root, newRoot, journal, keccak256(payload), payload];
}

async function commitJournal(ledger: Address, payload: Hex, newRoot?: Hex): Promise<TransactionReceipt> {
  return send(ledger, 'commitJournalBatch', await nextJournal(ledger, payload, newRoot));
}

interface Movement {
  operator: Address;
  from: Address;
  to: Address;
  id: bigint;
  value: bigint;
}

function transfers(receipt: TransactionReceipt): Movement[] {
  return parseEventLogs({ abi: ledgerAbi, logs: receipt.logs, eventName: 'TransferSingle' }).map((log) => log.args as unknown as Movement);
}

function eventArgs(receipt: TransactionReceipt, eventName: 'BatchCommitted' | 'JournalBatchCommitted' | 'TransferBatch'): Record<string, unknown>[] {
  return parseEventLogs({ abi: ledgerAbi, logs: receipt.logs, eventName }).map((log) => log.args as unknown as Record<string, unknown>);
}

/** The spec's chaining: keccak256(abi.encodePacked(bytes32 prev, uint64 nonce, bytes32 payloadHash)). */
function chainJournal(prev: Hex, nonce: bigint, payloadHash: Hex): Hex {
  return keccak256(encodePacked(['bytes32', 'uint64', 'bytes32'], [prev, nonce, payloadHash]));
}

function match(overrides: Partial<Match> = {}): Match {
  return { maker: alice, taker: bob, marketId: 7n, side: 1, kind: MATCH_KINDS.TRANSFER, shares: 5n, priceBps: 4000, fee: 1234n, ...overrides };
}

function credit(overrides: Partial<Credit> = {}): Credit {
  return { account: carol, id: COLLATERAL_ASSET, delta: 5_000_000n, reason: CREDIT_REASONS.SIGNUP_GRANT, ...overrides };
}

function move(from: Address, to: Address, id: bigint, value: bigint): Movement {
  return { operator: operator.address, from, to, id, value };
}

beforeAll(async () => {
  anvil = await startAnvil();
  pub = makePublic(anvil.rpcUrl);
});

afterAll(async () => {
  if (Object.keys(gas).length > 0) console.info(`gas used:\n${Object.entries(gas).map(([k, v]) => `  ${k}: ${v}`).join('\n')}`);
  await anvil?.stop();
});

describe('batch rules', () => {
  let ledger: Address;
  beforeAll(async () => {
    ledger = await deployLedger();
  });

  it('starts at batch 0 with the empty root and no journal commitment, run by the operator it was given', async () => {
    expect(await state(ledger)).toEqual({ nonce: 0n, root: ZERO_HASH, journal: ZERO_HASH });
    expect(await read<Address>(ledger, 'operator')).toBe(operator.address);
  });

  it('refuses a commit from anyone but the operator, in either mode', async () => {
    expect(await revertOf(ledger, 'commitBatch', await nextBatch(ledger, {}), stranger)).toEqual({ errorName: 'NotOperator', args: [stranger.address] });
    expect(await revertOf(ledger, 'commitJournalBatch', await nextJournal(ledger, '0x01'), stranger)).toEqual({ errorName: 'NotOperator', args: [stranger.address] });
  });

  it('refuses a batch whose nonce is not the next one, naming the expected and the given nonce', async () => {
    await commitBatch(ledger, {});
    const { root, journal } = await state(ledger);
    for (const given of [0n, 1n, 3n]) {
      expect(await revertOf(ledger, 'commitBatch', [given, root, freshRoot(), [], [], true])).toEqual({ errorName: 'WrongNonce', args: [2n, given] });
      expect(await revertOf(ledger, 'commitJournalBatch', [given, root, freshRoot(), journal, keccak256('0x'), '0x'])).toEqual({ errorName: 'WrongNonce', args: [2n, given] });
    }
  });

  it('refuses a batch built on another root, naming the current and the given root', async () => {
    const { nonce, root, journal } = await state(ledger);
    const stale = freshRoot();
    expect(await revertOf(ledger, 'commitBatch', [nonce + 1n, stale, freshRoot(), [], [], false])).toEqual({ errorName: 'WrongPrevRoot', args: [root, stale] });
    expect(await revertOf(ledger, 'commitJournalBatch', [nonce + 1n, stale, freshRoot(), journal, keccak256('0x'), '0x'])).toEqual({ errorName: 'WrongPrevRoot', args: [root, stale] });
  });

  it('refuses a journal batch that does not extend the current journal commitment', async () => {
    await commitJournal(ledger, '0xaa');
    const { nonce, root, journal } = await state(ledger);
    for (const given of [ZERO_HASH, keccak256('0xbeef')]) {
      expect(await revertOf(ledger, 'commitJournalBatch', [nonce + 1n, root, freshRoot(), given, keccak256('0x01'), '0x01'])).toEqual({ errorName: 'WrongJournalCommitment', args: [journal, given] });
    }
  });

  it('refuses a journal batch whose payload does not hash to payloadHash, naming the computed hash', async () => {
    const { nonce, root, journal } = await state(ledger);
    const payload: Hex = '0x504d4a350102';
    const claimed = keccak256('0x504d4a350103');
    expect(await revertOf(ledger, 'commitJournalBatch', [nonce + 1n, root, freshRoot(), journal, claimed, payload])).toEqual({ errorName: 'PayloadHashMismatch', args: [keccak256(payload), claimed] });
  });

  it('leaves the state unchanged after every refused batch', async () => {
    const before = await state(ledger);
    await revertOf(ledger, 'commitBatch', [before.nonce + 2n, before.root, freshRoot(), [], [], true]);
    expect(await state(ledger)).toEqual(before);
  });
});

describe('nonce, root and journal commitment', () => {
  it('advance one nonce sequence and one root across mixed legacy and journal batches', async () => {
    const ledger = await deployLedger();
    const steps: ('legacy' | 'journal')[] = ['legacy', 'journal', 'journal', 'legacy', 'journal', 'legacy'];
    let journal = ZERO_HASH;
    for (const [i, mode] of steps.entries()) {
      const nonce = BigInt(i + 1);
      const newRoot = freshRoot();
      if (mode === 'legacy') {
        const receipt = await commitBatch(ledger, { matches: [match()], credits: [credit(), credit({ account: dave })], emitEvents: i % 2 === 0 }, newRoot);
        expect(eventArgs(receipt, 'BatchCommitted')).toEqual([{ nonce, newRoot, matchCount: 1, creditCount: 2, eventsEmitted: i % 2 === 0 }]);
        expect(eventArgs(receipt, 'JournalBatchCommitted')).toEqual([]);
      } else {
        const payload = stringToHex(`PMJ5 batch ${nonce}`);
        const payloadHash = keccak256(payload);
        const receipt = await commitJournal(ledger, payload, newRoot);
        journal = chainJournal(journal, nonce, payloadHash);
        expect(eventArgs(receipt, 'JournalBatchCommitted')).toEqual([{ nonce, newRoot, journalCommitment: journal, payloadHash, payload }]);
        expect(eventArgs(receipt, 'BatchCommitted')).toEqual([]);
        expect(transfers(receipt)).toEqual([]);
      }
      // A legacy batch leaves the journal chain where it was.
      expect(await state(ledger)).toEqual({ nonce, root: newRoot, journal });
    }
  });

  it('chain journalCommitment as keccak256(prev ‖ uint64 nonce ‖ payloadHash) from zero', async () => {
    const ledger = await deployLedger();
    await commitBatch(ledger, {});
    const payloads: Hex[] = ['0x', '0x00', stringToHex('x'.repeat(1000))];
    let expected = ZERO_HASH;
    for (const payload of payloads) {
      await commitJournal(ledger, payload);
      const { nonce, journal } = await state(ledger);
      expected = chainJournal(expected, nonce, keccak256(payload));
      expect(journal).toBe(expected);
    }
    // The packed bytes spelled out: 32 + 8 + 32 = 72, the nonce big-endian in 8 bytes. Batch 1 was legacy.
    const second = keccak256(concat([ZERO_HASH, '0x0000000000000002', keccak256('0x')]));
    const third = keccak256(concat([second, '0x0000000000000003', keccak256('0x00')]));
    const fourth = keccak256(concat([third, '0x0000000000000004', keccak256(payloads[2]!)]));
    expect((await state(ledger)).journal).toBe(fourth);
  });

  it('records the journal payload so it can be read back from the event', async () => {
    const ledger = await deployLedger();
    const payload = stringToHex('PMJ5 complete payload');
    const receipt = await commitJournal(ledger, payload);
    const [event] = eventArgs(receipt, 'JournalBatchCommitted');
    expect(event?.payload).toBe(payload);
    gas['commitJournalBatch, first batch, 21-byte payload'] = receipt.gasUsed;
  });
});

describe('legacy transfer events', () => {
  let ledger: Address;
  beforeAll(async () => {
    ledger = await deployLedger();
  });

  it('emit exactly the movements of a TRANSFER, a MINT, a MERGE and two credits, matches first, in order', async () => {
    const own7 = outcomeAsset(7n, 1);
    const yes7 = outcomeAsset(7n, 0);
    const receipt = await commitBatch(ledger, {
      matches: [
        match({ kind: MATCH_KINDS.TRANSFER, marketId: 7n, side: 1, shares: 5n, priceBps: 4000, fee: 1234n }),
        match({ kind: MATCH_KINDS.MINT, marketId: 7n, side: 0, shares: 3n, priceBps: 2500, fee: 10n }),
        match({ kind: MATCH_KINDS.MERGE, marketId: 9n, side: 1, shares: 2n, priceBps: 9999, fee: 1n }),
      ],
      credits: [credit({ account: carol, id: COLLATERAL_ASSET, delta: 5_000_000n }), credit({ account: dave, id: own7, delta: -3n, reason: CREDIT_REASONS.PAYOUT })],
    });
    const op = operator.address;
    expect(transfers(receipt)).toEqual([
      // TRANSFER: alice sells 5 of (7,1) to bob at 40%: 5 × 4000 × 100 = 2,000,000 base units.
      move(alice, bob, own7, 5n),
      move(bob, alice, COLLATERAL_ASSET, 2_000_000n),
      move(bob, op, COLLATERAL_ASSET, 1234n),
      // MINT: alice buys 3 of (7,0) at 25%, bob buys 3 of (7,1) at 75%.
      move(alice, ZERO, COLLATERAL_ASSET, 750_000n),
      move(bob, ZERO, COLLATERAL_ASSET, 2_250_000n),
      move(ZERO, alice, yes7, 3n),
      move(ZERO, bob, own7, 3n),
      move(bob, op, COLLATERAL_ASSET, 10n),
      // MERGE: alice sells 2 of (9,1) at 99.99%, bob sells 2 of (9,0) at 0.01%.
      move(alice, ZERO, outcomeAsset(9n, 1), 2n),
      move(bob, ZERO, outcomeAsset(9n, 0), 2n),
      move(ZERO, alice, COLLATERAL_ASSET, 1_999_800n),
      move(ZERO, bob, COLLATERAL_ASSET, 200n),
      move(bob, op, COLLATERAL_ASSET, 1n),
      // Credits: a grant in, a payout retiring shares out.
      move(ZERO, carol, COLLATERAL_ASSET, 5_000_000n),
      move(dave, ZERO, own7, 3n),
    ]);
    expect(eventArgs(receipt, 'TransferBatch')).toEqual([]);
    expect(eventArgs(receipt, 'BatchCommitted')).toMatchObject([{ matchCount: 3, creditCount: 2, eventsEmitted: true }]);
    // BatchCommitted comes after the movements it summarises.
    expect(receipt.logs).toHaveLength(16);
    expect(parseEventLogs({ abi: ledgerAbi, logs: receipt.logs.slice(-1) })[0]?.eventName).toBe('BatchCommitted');
  });

  it('skip zero-value movements: a fee of 0 and a credit of 0 emit nothing', async () => {
    const receipt = await commitBatch(ledger, {
      matches: [match({ kind: MATCH_KINDS.TRANSFER, fee: 0n }), match({ kind: MATCH_KINDS.MINT, fee: 0n }), match({ kind: MATCH_KINDS.MERGE, fee: 0n })],
      credits: [credit({ delta: 0n })],
    });
    const moves = transfers(receipt);
    expect(moves).toHaveLength(2 + 4 + 4);
    expect(moves.every((m) => m.value > 0n && m.to !== operator.address)).toBe(true);
    expect(eventArgs(receipt, 'BatchCommitted')).toMatchObject([{ matchCount: 3, creditCount: 1, eventsEmitted: true }]);
  });

  it('carry the extreme int128 credits without overflow', async () => {
    const receipt = await commitBatch(ledger, { credits: [credit({ delta: INT128_MAX }), credit({ account: dave, delta: INT128_MIN })] });
    expect(transfers(receipt)).toEqual([move(ZERO, carol, COLLATERAL_ASSET, INT128_MAX), move(dave, ZERO, COLLATERAL_ASSET, 2n ** 127n)]);
  });

  it('are not emitted when emitEvents is false, though the batch is committed', async () => {
    const newRoot = freshRoot();
    const receipt = await commitBatch(ledger, { matches: [match(), match({ kind: MATCH_KINDS.MINT })], credits: [credit()], emitEvents: false }, newRoot);
    expect(transfers(receipt)).toEqual([]);
    expect(receipt.logs).toHaveLength(1);
    expect(eventArgs(receipt, 'BatchCommitted')).toMatchObject([{ newRoot, matchCount: 2, creditCount: 1, eventsEmitted: false }]);
    expect((await state(ledger)).root).toBe(newRoot);
  });
});

describe('invalid operations', () => {
  let ledger: Address;
  beforeAll(async () => {
    ledger = await deployLedger();
  });

  const badMatches: [string, Partial<Match>][] = [
    ['kind 4', { kind: 4 as Match['kind'] }],
    ['side 2', { side: 2 as Match['side'] }],
    ['market id 0', { marketId: 0n }],
    ['price 0', { priceBps: 0 }],
    ['price 10000', { priceBps: 10_000 }],
    ['0 shares', { shares: 0n }],
    ['maker = taker', { taker: alice }],
    ['a zero maker', { maker: ZERO }],
    ['a zero taker', { taker: ZERO }],
  ];

  it.each(badMatches)('refuse a match with %s as InvalidMatch(index), with or without events', async (_, bad) => {
    for (const emitEvents of [true, false]) {
      const args = await nextBatch(ledger, { matches: [match(), match({ kind: MATCH_KINDS.MINT }), match(bad)], emitEvents });
      expect(await revertOf(ledger, 'commitBatch', args)).toEqual({ errorName: 'InvalidMatch', args: [2n] });
    }
  });

  it('accept the bounds: price 1 and 9999, side 0 and 1, the largest market id', async () => {
    const receipt = await commitBatch(ledger, {
      matches: [match({ priceBps: 1, side: 0 }), match({ priceBps: 9999, side: 1, kind: MATCH_KINDS.MERGE, marketId: 2n ** 64n - 1n })],
    });
    expect(eventArgs(receipt, 'BatchCommitted')).toMatchObject([{ matchCount: 2 }]);
    const top = 2n ** 64n - 1n;
    // The MERGE's two burns, after the TRANSFER's three movements: side 1 from the maker, side 0 from the taker.
    expect(transfers(receipt).slice(3, 5)).toEqual([move(alice, ZERO, (top << 8n) | 1n, 5n), move(bob, ZERO, top << 8n, 5n)]);
  });

  it('refuse a credit to the zero address as InvalidCredit(index), with or without events', async () => {
    for (const emitEvents of [true, false]) {
      const args = await nextBatch(ledger, { matches: [match()], credits: [credit(), credit({ account: ZERO, delta: 0n })], emitEvents });
      expect(await revertOf(ledger, 'commitBatch', args)).toEqual({ errorName: 'InvalidCredit', args: [1n] });
    }
  });
});

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function prng(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]! };
}

const PEOPLE = [alice, bob, carol, dave] as const;

function randomBatch(rand: ReturnType<typeof prng>, matchCount: number, creditCount: number): { matches: Match[]; credits: Credit[] } {
  const matches: Match[] = [];
  for (let i = 0; i < matchCount; i++) {
    const maker = rand.pick(PEOPLE);
    const taker = rand.pick(PEOPLE.filter((p) => p !== maker));
    matches.push({
      maker,
      taker,
      marketId: BigInt(rand.int(1, 3)),
      side: rand.pick([0, 1] as const),
      kind: rand.pick([MATCH_KINDS.TRANSFER, MATCH_KINDS.MINT, MATCH_KINDS.MERGE]),
      shares: BigInt(rand.int(1, 1000)),
      priceBps: rand.int(1, 9999),
      fee: BigInt(rand.pick([0, rand.int(1, 50_000)])),
    });
  }
  // Credits only of collateral here, so every market's two sides keep equal supply.
  const credits: Credit[] = [];
  for (let i = 0; i < creditCount; i++) {
    credits.push({ account: rand.pick(PEOPLE), id: COLLATERAL_ASSET, delta: BigInt(rand.int(-2_000_000, 5_000_000)), reason: CREDIT_REASONS.ADJUSTMENT });
  }
  return { matches, credits };
}

describe('replay', () => {
  it('every asset sums to zero over all accounts, the supply account included, after replaying several batches', async () => {
    const ledger = await deployLedger();
    const rand = prng(20_240_601);
    const receipts: TransactionReceipt[] = [];
    let fees = 0n;
    for (let b = 0; b < 5; b++) {
      const batch = randomBatch(rand, rand.int(1, 8), rand.int(0, 5));
      fees += batch.matches.reduce((sum, m) => sum + m.fee, 0n);
      receipts.push(await commitBatch(ledger, batch));
      // Journal batches in between share the nonce sequence but move nothing in the legacy replay.
      if (b % 2 === 1) receipts.push(await commitJournal(ledger, stringToHex(`journal ${b}`)));
    }
    expect((await state(ledger)).nonce).toBe(7n);

    const balances = new Map<string, bigint>();
    const supply = new Map<bigint, bigint>();
    for (const m of receipts.flatMap(transfers)) {
      expect(m.operator).toBe(operator.address);
      balances.set(`${m.from}/${m.id}`, (balances.get(`${m.from}/${m.id}`) ?? 0n) - m.value);
      balances.set(`${m.to}/${m.id}`, (balances.get(`${m.to}/${m.id}`) ?? 0n) + m.value);
    }
    const sums = new Map<string, bigint>();
    for (const [key, balance] of balances) {
      const id = key.split('/')[1]!;
      sums.set(id, (sums.get(id) ?? 0n) + balance);
      if (key.startsWith(`${ZERO}/`)) supply.set(BigInt(id), balance);
    }
    expect(sums.size).toBeGreaterThan(3);
    for (const [id, sum] of sums) expect(sum, `asset ${id}`).toBe(0n);
    // The fee account holds exactly the fees; minting and merging keep a market's two sides in equal supply.
    expect(balances.get(`${operator.address}/0`)).toBe(fees);
    for (const marketId of [1n, 2n, 3n]) expect(supply.get(outcomeAsset(marketId, 0)) ?? 0n, `market ${marketId}`).toBe(supply.get(outcomeAsset(marketId, 1)) ?? 0n);
  });
});

describe('gas', () => {
  it('measures commitBatch with 10 matches and 10 credits, with and without transfer events', async () => {
    const ledger = await deployLedger();
    // Warm the nonce and root slots first, so both measurements pay the same storage costs.
    await commitBatch(ledger, {});
    const rand = prng(7);
    const batch = randomBatch(rand, 10, 10);
    const matches = batch.matches.map((m) => ({ ...m, fee: m.fee === 0n ? 100n : m.fee }));
    const credits = batch.credits.map((c) => ({ ...c, delta: c.delta === 0n ? 1n : c.delta }));
    const withEvents = await commitBatch(ledger, { matches, credits, emitEvents: true });
    const without = await commitBatch(ledger, { matches, credits, emitEvents: false });
    const expectedMoves = matches.reduce((n, m) => n + (m.kind === MATCH_KINDS.TRANSFER ? 3 : 5), 0) + credits.length;
    expect(transfers(withEvents)).toHaveLength(expectedMoves);
    gas[`commitBatch 10 matches + 10 credits, emitEvents true (${expectedMoves} TransferSingle)`] = withEvents.gasUsed;
    gas['commitBatch 10 matches + 10 credits, emitEvents false'] = without.gasUsed;
    expect(without.gasUsed).toBeLessThan(withEvents.gasUsed);
  });
});

describe('LedgerProofVerifier (test-only)', () => {
  let verifier: Address;
  let abi: Abi;
  beforeAll(async () => {
    const compiled = compileVerifier();
    abi = compiled.abi;
    verifier = await deployCode(abi, compiled.bytecode, []);
  });

  const leaf = (account: Address, assetId: bigint, balance: bigint): Hex => keccak256(keccak256(encodePacked(['address', 'uint256', 'int256'], [account, assetId, balance])));
  const verify = (proof: readonly Hex[], root: Hex, account: Address, assetId: bigint, balance: bigint) =>
    pub.readContract({ address: verifier, abi, functionName: 'verify', args: [proof, root, account, assetId, balance] }) as Promise<boolean>;

  it('accepts the only leaf of a one-leaf tree against root = leaf with an empty proof', async () => {
    const root = leaf(alice, COLLATERAL_ASSET, 5_000_000n);
    expect(await verify([], root, alice, COLLATERAL_ASSET, 5_000_000n)).toBe(true);
    expect(await verify([], root, alice, COLLATERAL_ASSET, 5_000_001n)).toBe(false);
  });

  it('accepts both leaves of a two-leaf tree whose root hashes the sorted pair, and refuses a wrong balance', async () => {
    const a = leaf(alice, COLLATERAL_ASSET, 5_000_000n);
    const b = leaf(bob, outcomeAsset(7n, 1), 3n);
    const root = keccak256(concat(BigInt(a) < BigInt(b) ? [a, b] : [b, a]));
    expect(await verify([b], root, alice, COLLATERAL_ASSET, 5_000_000n)).toBe(true);
    expect(await verify([a], root, bob, outcomeAsset(7n, 1), 3n)).toBe(true);
    expect(await verify([b], root, alice, COLLATERAL_ASSET, 4_999_999n)).toBe(false);
    expect(await verify([a], root, bob, outcomeAsset(7n, 1), -3n)).toBe(false);
    expect(await verify([a], root, carol, outcomeAsset(7n, 1), 3n)).toBe(false);
  });
});
