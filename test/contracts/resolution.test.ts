// Deploys the MarketResolver with both market lanes (LMSR and order book) from the committed artifacts onto a fresh
// anvil and drives every resolution path against real receipts: undisputed and void proposals, challenges and their
// bond, vote verdicts, the council, the absent creator, integrity restarts, relayed proposals, roles and window floors.
// Time moves with evm_increaseTime / evm_mine, never by sleeping. Nothing is mocked.
import {
  hashTypedData,
  keccak256,
  parseEventLogs,
  parseUnits,
  stringToHex,
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
import { rpc } from '../support/anvil-rpc.ts';
import { anvilDevAccounts, startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { abiWithAllErrors, loadArtifact, runtimeCodeHashOf, type ContractName } from '../../src/chain/artifacts.ts';

const keys = anvilDevAccounts() as Hex[];
const [owner, treasury, creator, alice, bob, c1, c2, c3, outsider] = keys.slice(0, 9).map((k) => privateKeyToAccount(k)) as [
  PrivateKeyAccount,
  PrivateKeyAccount,
  PrivateKeyAccount,
  PrivateKeyAccount,
  PrivateKeyAccount,
  PrivateKeyAccount,
  PrivateKeyAccount,
  PrivateKeyAccount,
  PrivateKeyAccount,
];
/** Council members in ascending address order, as councilDecide wants their signatures. */
const council = [c1, c2, c3].sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));

const MAX_UINT = 2n ** 256n - 1n;
const HOUR = 3_600n;
const DAY = 86_400n;
// The deployment values (src/core/markets/fees.ts, src/chain/markets-lane.ts).
const CREATION_BOND = parseUnits('100', 18);
const CHALLENGE_WINDOW = 2 * 3_600;
const VOTE_WINDOW = 24 * 3_600;
const RESOLUTION_WINDOW = 3 * 86_400;
const FLOOR = { USDC: parseUnits('100', 6), PM: parseUnits('100', 18) } as const;

const Phase = { None: 0, Proposed: 1, Disputed: 2, Voting: 3, Council: 4, Resolved: 5 } as const;
const Route = { None: 0, Undisputed: 1, Vote: 2, Council: 3 } as const;
const Reason = { Dispute: 0, AbsentCreator: 1, IntegrityRestart: 2 } as const;
const Verdict = { Binding: 0, NoQuorum: 1, Deadlock: 2 } as const;
const State = { Open: 0, Closed: 1, Proposed: 2, Disputed: 3, Resolved: 4 } as const;

let anvil: AnvilHandle;
let kit: ReturnType<typeof contractKit>;
const deploy = (name: ContractName, args: readonly unknown[]) => kit.deploy(name, args);
const read = <T>(name: ContractName, address: Address, functionName: string, args: readonly unknown[] = []) => kit.read<T>(name, address, functionName, args);
const send = (name: ContractName, address: Address, from: PrivateKeyAccount, functionName: string, args: readonly unknown[]) => kit.send(name, address, from, functionName, args);
const revertOf = (name: ContractName, address: Address, from: PrivateKeyAccount, functionName: string, args: readonly unknown[]) => kit.revertOf(name, address, from, functionName, args);
const now = () => kit.now();

interface Env {
  pm: Address;
  usdc: Address;
  outcomeToken: Address;
  resolver: Address;
  implementation: Address;
  router: { USDC: Address; PM: Address };
  factory: { 2: Address; 3: Address };
  orderbookFactory: Address;
}
let env: Env;

const gas: Record<string, bigint> = {};

async function advance(seconds: bigint | number): Promise<void> {
  await rpc(anvil.rpcUrl, 'evm_increaseTime', [Number(seconds)]);
  await rpc(anvil.rpcUrl, 'evm_mine');
}

/** The resolver's events in a receipt, by name, as plain argument objects. */
function eventsOf(receipt: TransactionReceipt, eventName: string): Record<string, unknown>[] {
  return parseEventLogs({ abi: loadArtifact('MarketResolver').abi, logs: receipt.logs }).filter((l) => l.eventName === eventName).map((l) => l.args as Record<string, unknown>);
}

interface ResolutionRecord {
  phase: number;
  proposedOutcome: number;
  counterOutcome: number;
  voteRound: number;
  finalOutcome: number;
  route: number;
  creatorSlashed: boolean;
  proposedAt: bigint;
  challengeDeadline: bigint;
  finalizedAt: bigint;
  challenger: Address;
  challengeBondPaid: bigint;
  voteDeadline: bigint;
  ballotCount: number;
  ballotRoot: Hex;
}
const recordOf = (market: Address) => read<ResolutionRecord>('MarketResolver', env.resolver, 'resolutionOf', [market]);
const lmsrState = (market: Address) => read<number>('LmsrMarket', market, 'state');

let questionSeq = 0;
/** A market created by `creator` through the factory of n outcomes; closes in `closeIn` seconds. */
async function createMarket(opts: { n?: 2 | 3; sym?: 'USDC' | 'PM'; closeIn?: bigint; window?: number } = {}): Promise<Address> {
  const n = opts.n ?? 2;
  const sym = opts.sym ?? 'PM';
  const closeTime = (await now()) + (opts.closeIn ?? 30n * DAY);
  const questionHash = keccak256(stringToHex(`resolution question ${++questionSeq}`));
  const receipt = await send('LmsrMarketFactory', env.factory[n], creator, 'createMarket', [sym === 'PM' ? env.pm : env.usdc, questionHash, closeTime, opts.window ?? RESOLUTION_WINDOW, FLOOR[sym], 100, 100, CREATION_BOND]);
  const [created] = parseEventLogs({ abi: loadArtifact('LmsrMarketFactory').abi, logs: receipt.logs, eventName: 'MarketCreated' });
  return (created!.args as { market: Address }).market;
}

async function buy(market: Address, outcome: number, shares: bigint, from = alice, sym: 'USDC' | 'PM' = 'PM'): Promise<TransactionReceipt> {
  const intent = { market, outcome, isBuy: true, shares, limit: MAX_UINT, deadline: (await now()) + HOUR, recipient: from.address };
  return send('TradeRouter', env.router[sym], from, 'executeTradeIntent', [intent]);
}

const pmBalance = (account: Address) => read<bigint>('ParticipationToken', env.pm, 'balanceOf', [account]);

async function propose(market: Address, outcome: number): Promise<TransactionReceipt> {
  return send('MarketResolver', env.resolver, creator, 'propose', [market, outcome]);
}

/** Proposes `proposed`, challenges with `counter` as bob and opens round 1; returns the VoteOpened deadline. */
async function disputeAndOpenVote(market: Address, proposed: number, counter: number): Promise<bigint> {
  await propose(market, proposed);
  await send('MarketResolver', env.resolver, bob, 'challenge', [market, counter]);
  const receipt = await send('MarketResolver', env.resolver, owner, 'openVote', [market]);
  return eventsOf(receipt, 'VoteOpened')[0]!.voteDeadline as bigint;
}

const domain = () => ({ name: 'MarketResolver', version: '1', chainId: 8453, verifyingContract: env.resolver });
const COUNCIL_TYPES = { CouncilDecision: [{ name: 'market', type: 'address' }, { name: 'outcome', type: 'uint8' }, { name: 'round', type: 'uint8' }] } as const;
const PROPOSAL_TYPES = { Proposal: [{ name: 'market', type: 'address' }, { name: 'outcome', type: 'uint8' }, { name: 'deadline', type: 'uint256' }] } as const;

async function councilSignature(member: PrivateKeyAccount, market: Address, outcome: number, round: number) {
  const signature = await member.signTypedData({ domain: domain(), types: COUNCIL_TYPES, primaryType: 'CouncilDecision', message: { market, outcome, round } });
  return { signer: member.address, signature };
}

async function proposalSignature(signer: PrivateKeyAccount, market: Address, outcome: number, deadline: bigint): Promise<Hex> {
  return signer.signTypedData({ domain: domain(), types: PROPOSAL_TYPES, primaryType: 'Proposal', message: { market, outcome, deadline } });
}

beforeAll(async () => {
  anvil = await startAnvil();
  kit = contractKit(anvil.rpcUrl, owner);

  const pm = await deploy('ParticipationToken', [owner.address, parseUnits('1000000000', 18)]);
  const usdc = await deploy('TestUSDC', [owner.address]);
  const outcomeToken = await deploy('OutcomeToken', [owner.address]);
  // The embedded chain's resolver: the service's windows, with the floors lifted (shortWindowsAllowed).
  const resolver = await deploy('MarketResolver', [owner.address, pm, CREATION_BOND, CHALLENGE_WINDOW, VOTE_WINDOW, true]);
  const implementation = await deploy('LmsrMarket', [outcomeToken, pm, resolver]);
  const router = { USDC: await deploy('TradeRouter', [usdc, outcomeToken, owner.address]), PM: await deploy('TradeRouter', [pm, outcomeToken, owner.address]) };
  const factoryArgs = [implementation, owner.address, treasury.address, 100, 300, CREATION_BOND];
  const factory = { 2: await deploy('LmsrMarketFactory', [2, ...factoryArgs]), 3: await deploy('LmsrMarketFactory', [3, ...factoryArgs]) };
  const orderbookImplementation = await deploy('OrderBookMarket', [resolver]);
  const orderbookFactory = await deploy('OrderBookMarketFactory', [orderbookImplementation, owner.address]);
  env = { pm, usdc, outcomeToken, resolver, implementation, router, factory, orderbookFactory };

  for (const f of [factory[2], factory[3]]) {
    await send('OutcomeToken', outcomeToken, owner, 'setFactory', [f, true]);
    for (const sym of ['USDC', 'PM'] as const) {
      await send('TradeRouter', router[sym], owner, 'setFactory', [f, true]);
      await send('LmsrMarketFactory', f, owner, 'setCollateral', [sym === 'PM' ? pm : usdc, router[sym], FLOOR[sym]]);
    }
  }
  for (const who of [creator, alice, bob]) {
    await send('TestUSDC', usdc, owner, 'mint', [who.address, parseUnits('10000000', 6)]);
    await send('ParticipationToken', pm, owner, 'transfer', [who.address, parseUnits('10000000', 18)]);
  }
  for (const token of [pm, usdc]) {
    for (const f of [factory[2], factory[3]]) await send('TestUSDC', token, creator, 'approve', [f, MAX_UINT]);
    await send('TestUSDC', token, alice, 'approve', [token === pm ? router.PM : router.USDC, MAX_UINT]);
  }
  await send('OutcomeToken', outcomeToken, alice, 'setApprovalForAll', [router.PM, true]);
  // bob challenges; a challenge pulls the bond with an ordinary ERC-20 allowance to the resolver.
  await send('ParticipationToken', pm, bob, 'approve', [resolver, MAX_UINT]);
  await send('MarketResolver', resolver, owner, 'setCouncil', [[c1.address, c2.address, c3.address], 2n]);
});

afterAll(async () => {
  if (Object.keys(gas).length > 0) console.info(`gas used:\n${Object.entries(gas).map(([k, v]) => `  ${k}: ${v}`).join('\n')}`);
  await anvil?.stop();
});

describe('the resolver as deployed', () => {
  it('reads back its operator, bond, windows, floors and council', async () => {
    const view = <T>(fn: string) => read<T>('MarketResolver', env.resolver, fn);
    expect(await view('operator')).toBe(owner.address);
    expect(await view('bondToken')).toBe(env.pm);
    expect(await view('challengeBond')).toBe(CREATION_BOND);
    expect(await view('challengeWindow')).toBe(CHALLENGE_WINDOW);
    expect(await view('voteWindow')).toBe(VOTE_WINDOW);
    expect(await view('shortWindowsAllowed')).toBe(true);
    expect(await view('MIN_CHALLENGE_WINDOW')).toBe(CHALLENGE_WINDOW);
    expect(await view('MIN_VOTE_WINDOW')).toBe(VOTE_WINDOW);
    expect(await view('councilMembers')).toEqual([c1.address, c2.address, c3.address]);
    expect(await view('councilThreshold')).toBe(2n);
    for (const m of [c1, c2, c3]) expect(await read('MarketResolver', env.resolver, 'isCouncilMember', [m.address])).toBe(true);
    expect(await read('MarketResolver', env.resolver, 'isCouncilMember', [outsider.address])).toBe(false);
    expect(await read('LmsrMarket', env.implementation, 'resolver')).toBe(env.resolver);
  });

  it('runtimeCodeHash matches the deployed code once immutables are masked', async () => {
    const code = await kit.pub.getCode({ address: env.resolver });
    const artifact = loadArtifact('MarketResolver');
    expect(runtimeCodeHashOf(artifact, code!)).toBe(artifact.runtimeCodeHash);
  });
});

describe('undisputed proposals', () => {
  it('resolve to the proposed outcome once the challenge window passed, and unlock the creator fees', async () => {
    const market = await createMarket();
    await buy(market, 1, FLOOR.PM);
    const fees = await read<bigint>('LmsrMarket', market, 'creatorFees');
    expect(fees).toBeGreaterThan(0n);
    expect(await revertOf('LmsrMarket', market, creator, 'collectCreatorFees', [])).toEqual({ errorName: 'CreatorFeesLocked', args: [State.Open] });

    const proposed = await propose(market, 2);
    gas.propose = proposed.gasUsed;
    const t = (await kit.pub.getBlock({ blockNumber: proposed.blockNumber })).timestamp;
    expect(eventsOf(proposed, 'ResolutionProposed')).toEqual([{ market, outcome: 2, proposer: creator.address, challengeDeadline: t + BigInt(CHALLENGE_WINDOW) }]);
    expect(await lmsrState(market)).toBe(State.Proposed);
    expect(await read('MarketResolver', env.resolver, 'phaseOf', [market])).toBe(Phase.Proposed);
    expect(await revertOf('LmsrMarket', market, creator, 'collectCreatorFees', [])).toEqual({ errorName: 'CreatorFeesLocked', args: [State.Proposed] });
    // marketInfo's resolution is filled from the resolver.
    expect((await read<{ resolution: unknown }>('LmsrMarket', market, 'marketInfo')).resolution).toEqual({ proposedOutcome: 2, proposedAt: t, challengeDeadline: t + BigInt(CHALLENGE_WINDOW), finalOutcome: 0 });

    expect(await revertOf('MarketResolver', env.resolver, alice, 'finalize', [market])).toEqual({ errorName: 'ChallengeWindowOpen', args: [t + BigInt(CHALLENGE_WINDOW)] });
    await advance(CHALLENGE_WINDOW);
    const finalized = await send('MarketResolver', env.resolver, alice, 'finalize', [market]);
    gas.finalize = finalized.gasUsed;
    expect(eventsOf(finalized, 'MarketResolved')).toEqual([{ market, outcome: 2, route: Route.Undisputed, creatorSlashed: false }]);
    const finalizedAt = (await kit.pub.getBlock({ blockNumber: finalized.blockNumber })).timestamp;
    expect(await recordOf(market)).toEqual({
      phase: Phase.Resolved,
      proposedOutcome: 2,
      counterOutcome: 0,
      voteRound: 0,
      finalOutcome: 2,
      route: Route.Undisputed,
      creatorSlashed: false,
      proposedAt: t,
      challengeDeadline: t + BigInt(CHALLENGE_WINDOW),
      finalizedAt,
      challenger: zeroAddress,
      challengeBondPaid: 0n,
      voteDeadline: 0n,
      ballotCount: 0,
      ballotRoot: `0x${'0'.repeat(64)}`,
    });
    expect(await lmsrState(market)).toBe(State.Resolved);
    expect(await read('LmsrMarket', market, 'finalOutcome')).toBe(2);
    expect((await read<{ resolution: unknown; state: number }>('LmsrMarket', market, 'marketInfo')).resolution).toMatchObject({ finalOutcome: 2 });
    // A resolved market cannot be resolved again, by any path.
    expect(await revertOf('MarketResolver', env.resolver, alice, 'finalize', [market])).toEqual({ errorName: 'WrongPhase', args: [Phase.Resolved] });
    expect(await revertOf('MarketResolver', env.resolver, owner, 'openVote', [market])).toEqual({ errorName: 'WrongPhase', args: [Phase.Resolved] });

    const before = await pmBalance(creator.address);
    const collected = await send('LmsrMarket', market, creator, 'collectCreatorFees', []);
    expect(parseEventLogs({ abi: loadArtifact('LmsrMarket').abi, logs: collected.logs, eventName: 'CreatorFeesCollected' })[0]!.args).toEqual({ creator: creator.address, amount: fees });
    expect((await pmBalance(creator.address)) - before).toBe(fees);
    expect(await read('LmsrMarket', market, 'creatorFees')).toBe(0n);
  });

  it('resolve a void proposal (0) as void', async () => {
    const market = await createMarket({ n: 3, sym: 'USDC' });
    await propose(market, 0);
    await advance(CHALLENGE_WINDOW);
    const receipt = await send('MarketResolver', env.resolver, bob, 'finalize', [market]);
    expect(eventsOf(receipt, 'MarketResolved')).toEqual([{ market, outcome: 0, route: Route.Undisputed, creatorSlashed: false }]);
    expect(await lmsrState(market)).toBe(State.Resolved);
    expect(await read('LmsrMarket', market, 'finalOutcome')).toBe(0);
    expect((await recordOf(market)).finalOutcome).toBe(0);
  });

  it('stop trading at once, before close time', async () => {
    const market = await createMarket();
    await buy(market, 0, FLOOR.PM / 10n);
    await propose(market, 1);
    const closeTime = await read<bigint>('LmsrMarket', market, 'closeTime');
    expect(closeTime).toBeGreaterThan(await now());
    expect(await revertOf('LmsrMarket', market, alice, 'quoteBuy', [0, 1n])).toEqual({ errorName: 'MarketClosed', args: [closeTime] });
    const intent = { market, outcome: 0, isBuy: true, shares: FLOOR.PM / 10n, limit: MAX_UINT, deadline: (await now()) + HOUR, recipient: alice.address };
    expect(await revertOf('TradeRouter', env.router.PM, alice, 'executeTradeIntent', [intent])).toEqual({ errorName: 'MarketClosed', args: [closeTime] });
    expect(await revertOf('TradeRouter', env.router.PM, alice, 'executeTradeIntent', [{ ...intent, isBuy: false, limit: 0n }])).toEqual({ errorName: 'MarketClosed', args: [closeTime] });
  });

  it('are refused from anyone but the creator, twice, out of range, after resolveBy, and for non-markets', async () => {
    const market = await createMarket({ closeIn: 2n * HOUR, window: 3_600 });
    expect(await revertOf('MarketResolver', env.resolver, alice, 'propose', [market, 1])).toEqual({ errorName: 'NotCreator', args: [alice.address] });
    expect(await revertOf('MarketResolver', env.resolver, creator, 'propose', [market, 3])).toEqual({ errorName: 'InvalidOutcome', args: [3, 2] });
    for (const stranger of [alice.address, env.outcomeToken, env.implementation]) {
      expect(await revertOf('MarketResolver', env.resolver, creator, 'propose', [stranger, 1])).toEqual({ errorName: stranger === env.implementation ? 'NotCreator' : 'NotMarketOfThisResolver', args: [stranger === env.implementation ? creator.address : stranger] });
    }
    // A market of another resolver is not this resolver's.
    const other = await deploy('MarketResolver', [owner.address, env.pm, CREATION_BOND, CHALLENGE_WINDOW, VOTE_WINDOW, true]);
    expect(await revertOf('MarketResolver', other, creator, 'propose', [market, 1])).toEqual({ errorName: 'NotMarketOfThisResolver', args: [market] });

    const resolveBy = await read<bigint>('LmsrMarket', market, 'resolveBy');
    expect(resolveBy).toBe((await read<bigint>('LmsrMarket', market, 'closeTime')) + 3_600n);
    await advance(resolveBy - (await now()) + 1n);
    expect(await revertOf('MarketResolver', env.resolver, creator, 'propose', [market, 1])).toEqual({ errorName: 'ResolveByPassed', args: [resolveBy] });

    const fresh = await createMarket();
    await propose(fresh, 1);
    expect(await revertOf('MarketResolver', env.resolver, creator, 'propose', [fresh, 2])).toEqual({ errorName: 'WrongPhase', args: [Phase.Proposed] });
    expect(await revertOf('MarketResolver', env.resolver, alice, 'finalize', [market])).toEqual({ errorName: 'WrongPhase', args: [Phase.None] });
  });

  it('let only the resolver record an outcome in a market', async () => {
    const market = await createMarket();
    expect(await revertOf('LmsrMarket', market, alice, 'onResolved', [1])).toEqual({ errorName: 'NotResolver', args: [alice.address] });
    expect(await revertOf('LmsrMarket', market, creator, 'onResolved', [1])).toEqual({ errorName: 'NotResolver', args: [creator.address] });
  });
});

describe('relayed proposals', () => {
  it("accept the creator's EIP-712 signature sent by anyone, and refuse another signer's", async () => {
    const market = await createMarket();
    const deadline = (await now()) + HOUR;
    const signature = await proposalSignature(creator, market, 2, deadline);
    expect(await read('MarketResolver', env.resolver, 'proposalDigest', [market, 2, deadline])).toBe(hashTypedData({ domain: domain(), types: PROPOSAL_TYPES, primaryType: 'Proposal', message: { market, outcome: 2, deadline } }));

    const forged = await proposalSignature(bob, market, 2, deadline);
    expect(await revertOf('MarketResolver', env.resolver, alice, 'proposeFor', [market, 2, deadline, forged])).toEqual({ errorName: 'BadSignature', args: [creator.address] });
    // The signature binds the outcome and the deadline.
    expect(await revertOf('MarketResolver', env.resolver, alice, 'proposeFor', [market, 1, deadline, signature])).toEqual({ errorName: 'BadSignature', args: [creator.address] });
    expect(await revertOf('MarketResolver', env.resolver, alice, 'proposeFor', [market, 2, deadline + 1n, signature])).toEqual({ errorName: 'BadSignature', args: [creator.address] });

    const receipt = await send('MarketResolver', env.resolver, alice, 'proposeFor', [market, 2, deadline, signature]);
    gas.proposeFor = receipt.gasUsed;
    expect(eventsOf(receipt, 'ResolutionProposed')[0]).toMatchObject({ market, outcome: 2, proposer: creator.address });
    expect((await recordOf(market)).proposedOutcome).toBe(2);
    // Once proposed, the same signature cannot be used again.
    expect(await revertOf('MarketResolver', env.resolver, alice, 'proposeFor', [market, 2, deadline, signature])).toEqual({ errorName: 'WrongPhase', args: [Phase.Proposed] });
  });

  it('refuse a signature past its deadline', async () => {
    const market = await createMarket();
    const deadline = (await now()) + 60n;
    const signature = await proposalSignature(creator, market, 1, deadline);
    await advance(61);
    expect(await revertOf('MarketResolver', env.resolver, alice, 'proposeFor', [market, 1, deadline, signature])).toEqual({ errorName: 'SignatureExpired', args: [deadline] });
  });
});

describe('challenges', () => {
  it('pull the bond into the resolver and record who paid it', async () => {
    const market = await createMarket();
    await propose(market, 1);
    expect(await revertOf('MarketResolver', env.resolver, bob, 'challenge', [market, 1])).toEqual({ errorName: 'CounterOutcomeIsProposed', args: [1] });
    expect(await revertOf('MarketResolver', env.resolver, bob, 'challenge', [market, 3])).toEqual({ errorName: 'InvalidOutcome', args: [3, 2] });
    // Without an allowance to the resolver the token refuses the pull.
    expect((await revertOf('MarketResolver', env.resolver, alice, 'challenge', [market, 2])).errorName).toBe('ERC20InsufficientAllowance');

    const [bobBefore, heldBefore] = [await pmBalance(bob.address), await pmBalance(env.resolver)];
    const receipt = await send('MarketResolver', env.resolver, bob, 'challenge', [market, 0]);
    gas.challenge = receipt.gasUsed;
    expect(eventsOf(receipt, 'ResolutionChallenged')).toEqual([{ market, challenger: bob.address, counterOutcome: 0, bond: CREATION_BOND }]);
    expect(bobBefore - (await pmBalance(bob.address))).toBe(CREATION_BOND);
    expect((await pmBalance(env.resolver)) - heldBefore).toBe(CREATION_BOND);
    expect(await recordOf(market)).toMatchObject({ phase: Phase.Disputed, proposedOutcome: 1, counterOutcome: 0, challenger: bob.address, challengeBondPaid: CREATION_BOND });
    expect(await lmsrState(market)).toBe(State.Disputed);
    // One challenge per market; a disputed proposal is no longer final at its deadline.
    expect(await revertOf('MarketResolver', env.resolver, bob, 'challenge', [market, 2])).toEqual({ errorName: 'WrongPhase', args: [Phase.Disputed] });
    await advance(CHALLENGE_WINDOW);
    expect(await revertOf('MarketResolver', env.resolver, alice, 'finalize', [market])).toEqual({ errorName: 'WrongPhase', args: [Phase.Disputed] });
  });

  it('are refused on chain at and after the challenge deadline', async () => {
    const market = await createMarket();
    await propose(market, 1);
    const { challengeDeadline } = await recordOf(market);
    // The next block is mined exactly at the deadline.
    await rpc(anvil.rpcUrl, 'evm_setNextBlockTimestamp', [Number(challengeDeadline)]);
    const before = await pmBalance(bob.address);
    // An explicit gas limit skips estimation, so the refused transaction is mined and its receipt says reverted.
    const hash = await kit.wallet(bob).writeContract({ address: env.resolver, abi: abiWithAllErrors('MarketResolver'), functionName: 'challenge', args: [market, 2], gas: 300_000n });
    const receipt = await kit.pub.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('reverted');
    expect((await kit.pub.getBlock({ blockNumber: receipt.blockNumber })).timestamp).toBe(challengeDeadline);
    expect(await pmBalance(bob.address)).toBe(before);
    expect(await revertOf('MarketResolver', env.resolver, bob, 'challenge', [market, 2])).toEqual({ errorName: 'ChallengeWindowClosed', args: [challengeDeadline] });
    // Unchallenged, the proposal is final.
    await send('MarketResolver', env.resolver, alice, 'finalize', [market]);
    expect(await lmsrState(market)).toBe(State.Resolved);
  });
});

describe('votes', () => {
  it('a disputed market goes to a vote and resolves by a binding verdict, slashing an overturned creator', async () => {
    const market = await createMarket();
    await propose(market, 1);
    await send('MarketResolver', env.resolver, bob, 'challenge', [market, 2]);
    const opened = await send('MarketResolver', env.resolver, owner, 'openVote', [market]);
    gas.openVote = opened.gasUsed;
    const t = (await kit.pub.getBlock({ blockNumber: opened.blockNumber })).timestamp;
    const voteDeadline = t + BigInt(VOTE_WINDOW);
    expect(eventsOf(opened, 'VoteOpened')).toEqual([{ market, round: 1, voteDeadline, reason: Reason.Dispute }]);
    expect(await recordOf(market)).toMatchObject({ phase: Phase.Voting, voteRound: 1, voteDeadline });
    expect(await lmsrState(market)).toBe(State.Disputed);

    const root = keccak256(stringToHex('ballots'));
    expect(await revertOf('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 1, Verdict.Binding, 2, root, 17])).toEqual({ errorName: 'VoteStillOpen', args: [voteDeadline] });
    await advance(VOTE_WINDOW);
    expect(await revertOf('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 1, Verdict.Binding, 3, root, 17])).toEqual({ errorName: 'InvalidOutcome', args: [3, 2] });
    const closed = await send('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 1, Verdict.Binding, 2, root, 17]);
    gas['recordVerdict (binding)'] = closed.gasUsed;
    expect(eventsOf(closed, 'VoteClosed')).toEqual([{ market, round: 1, kind: Verdict.Binding, outcome: 2, ballotRoot: root, ballotCount: 17 }]);
    expect(eventsOf(closed, 'MarketResolved')).toEqual([{ market, outcome: 2, route: Route.Vote, creatorSlashed: true }]);
    expect(await recordOf(market)).toMatchObject({ phase: Phase.Resolved, finalOutcome: 2, route: Route.Vote, creatorSlashed: true, ballotRoot: root, ballotCount: 17, challenger: bob.address });
    expect(await lmsrState(market)).toBe(State.Resolved);
    expect(await read('LmsrMarket', market, 'finalOutcome')).toBe(2);
  });

  it('a binding verdict that upholds the proposal does not slash the creator', async () => {
    const market = await createMarket();
    await disputeAndOpenVote(market, 1, 0);
    await advance(VOTE_WINDOW);
    const closed = await send('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 1, Verdict.Binding, 1, keccak256('0x01'), 3]);
    expect(eventsOf(closed, 'MarketResolved')).toEqual([{ market, outcome: 1, route: Route.Vote, creatorSlashed: false }]);
  });

  it('opens only from Disputed, an absent creator or round 1', async () => {
    const market = await createMarket();
    expect(await revertOf('MarketResolver', env.resolver, owner, 'openVote', [market])).toEqual({ errorName: 'NotYetAbsent', args: [await read<bigint>('LmsrMarket', market, 'resolveBy')] });
    await propose(market, 1);
    expect(await revertOf('MarketResolver', env.resolver, owner, 'openVote', [market])).toEqual({ errorName: 'WrongPhase', args: [Phase.Proposed] });
    expect(await revertOf('MarketResolver', env.resolver, owner, 'openVote', [alice.address])).toEqual({ errorName: 'NotMarketOfThisResolver', args: [alice.address] });
    expect(await revertOf('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 1, Verdict.Binding, 1, keccak256('0x01'), 1])).toEqual({ errorName: 'WrongPhase', args: [Phase.Proposed] });
  });

  it('an integrity restart opens round 2, after which the round-1 verdict is refused', async () => {
    const market = await createMarket({ n: 3 });
    // Round 1 opens at a pinned second. Round 2's gas estimated in that second is too little a second later: there the
    // new deadline (block time + window) equals the stored one and writing it costs less. Sent with that estimate as its
    // limit it ran out of gas; with the headroom every send here gives (contract-kit.ts), it does not. Blocks keep round
    // 1's time (an interval of 0) until the send has estimated; its transaction is mined a second later.
    const t1 = (await kit.pub.getBlock()).timestamp + 100n;
    await propose(market, 3);
    await send('MarketResolver', env.resolver, bob, 'challenge', [market, 1]);
    let restarted: TransactionReceipt;
    let inRoundOnesSecond: bigint;
    await rpc(anvil.rpcUrl, 'anvil_setBlockTimestampInterval', [0]);
    const timeFlows = () => rpc(anvil.rpcUrl, 'anvil_removeBlockTimestampInterval', []);
    try {
      await rpc(anvil.rpcUrl, 'evm_setNextBlockTimestamp', [Number(t1)]);
      await send('MarketResolver', env.resolver, owner, 'openVote', [market]);
      inRoundOnesSecond = await kit.pub.estimateContractGas({ address: env.resolver, abi: abiWithAllErrors('MarketResolver'), functionName: 'openVote', args: [market], account: owner });
      const nextSecond = async () => {
        await timeFlows();
        await rpc(anvil.rpcUrl, 'evm_setNextBlockTimestamp', [Number(t1 + 1n)]);
      };
      restarted = await kit.send('MarketResolver', env.resolver, owner, 'openVote', [market], { afterEstimate: nextSecond });
    } finally {
      await timeFlows();
    }
    expect([restarted.gasUsed > inRoundOnesSecond, (await kit.pub.getBlock({ blockNumber: restarted.blockNumber })).timestamp]).toEqual([true, t1 + 1n]);
    const t = (await kit.pub.getBlock({ blockNumber: restarted.blockNumber })).timestamp;
    expect(eventsOf(restarted, 'VoteOpened')).toEqual([{ market, round: 2, voteDeadline: t + BigInt(VOTE_WINDOW), reason: Reason.IntegrityRestart }]);
    expect(await revertOf('MarketResolver', env.resolver, owner, 'openVote', [market])).toEqual({ errorName: 'NoMoreVoteRounds', args: [] });
    await advance(VOTE_WINDOW);
    const root = keccak256(stringToHex('round 2 ballots'));
    expect(await revertOf('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 1, Verdict.Binding, 1, root, 9])).toEqual({ errorName: 'WrongRound', args: [1, 2] });
    const closed = await send('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 2, Verdict.Binding, 3, root, 9]);
    expect(eventsOf(closed, 'VoteClosed')[0]).toMatchObject({ round: 2, outcome: 3 });
    expect(eventsOf(closed, 'MarketResolved')).toEqual([{ market, outcome: 3, route: Route.Vote, creatorSlashed: false }]);
    expect(await recordOf(market)).toMatchObject({ voteRound: 2, finalOutcome: 3 });
  });

  it('an absent creator: the operator opens a vote after resolveBy, and the creator is slashed', async () => {
    const market = await createMarket({ closeIn: 2n * HOUR, window: 3_600 });
    const resolveBy = await read<bigint>('LmsrMarket', market, 'resolveBy');
    expect(await revertOf('MarketResolver', env.resolver, owner, 'openVote', [market])).toEqual({ errorName: 'NotYetAbsent', args: [resolveBy] });
    // At resolveBy itself the creator may still propose, so the operator may not open yet (a mined transaction, to pin
    // the block time; the gas limit skips estimation).
    await rpc(anvil.rpcUrl, 'evm_setNextBlockTimestamp', [Number(resolveBy)]);
    const hash = await kit.wallet(owner).writeContract({ address: env.resolver, abi: abiWithAllErrors('MarketResolver'), functionName: 'openVote', args: [market], gas: 300_000n });
    const refused = await kit.pub.waitForTransactionReceipt({ hash });
    expect(refused.status).toBe('reverted');
    expect((await kit.pub.getBlock({ blockNumber: refused.blockNumber })).timestamp).toBe(resolveBy);
    expect(await lmsrState(market)).toBe(State.Closed);
    await advance(1);
    const opened = await send('MarketResolver', env.resolver, owner, 'openVote', [market]);
    expect(eventsOf(opened, 'VoteOpened')[0]).toMatchObject({ market, round: 1, reason: Reason.AbsentCreator });
    expect(await lmsrState(market)).toBe(State.Disputed);
    await advance(VOTE_WINDOW);
    const closed = await send('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 1, Verdict.Binding, 1, keccak256('0x02'), 5]);
    expect(eventsOf(closed, 'MarketResolved')).toEqual([{ market, outcome: 1, route: Route.Vote, creatorSlashed: true }]);
    expect(await recordOf(market)).toMatchObject({ proposedAt: 0n, challenger: zeroAddress, creatorSlashed: true, finalOutcome: 1 });
  });
});

describe('the council', () => {
  it('decides a vote without quorum with 2 of 3 member signatures', async () => {
    const market = await createMarket();
    await disputeAndOpenVote(market, 2, 1);
    await advance(VOTE_WINDOW);
    const closed = await send('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 1, Verdict.NoQuorum, 0, keccak256('0x03'), 2]);
    expect(eventsOf(closed, 'VoteClosed')[0]).toMatchObject({ kind: Verdict.NoQuorum, outcome: 0, ballotCount: 2 });
    expect(eventsOf(closed, 'MarketResolved')).toEqual([]);
    expect((await recordOf(market)).phase).toBe(Phase.Council);
    expect(await lmsrState(market)).toBe(State.Disputed);
    expect(await read('MarketResolver', env.resolver, 'councilDecisionDigest', [market, 1, 1])).toBe(hashTypedData({ domain: domain(), types: COUNCIL_TYPES, primaryType: 'CouncilDecision', message: { market, outcome: 1, round: 1 } }));

    const [a, b] = [await councilSignature(council[0]!, market, 1, 1), await councilSignature(council[1]!, market, 1, 1)];
    const decide = (sigs: unknown[], outcome = 1, from = alice) => revertOf('MarketResolver', env.resolver, from, 'councilDecide', [market, outcome, sigs]);
    expect(await decide([a])).toEqual({ errorName: 'NotEnoughCouncilSignatures', args: [1n, 2n] });
    expect(await decide([b, a])).toEqual({ errorName: 'CouncilSignersNotAscending', args: [a.signer] });
    expect(await decide([a, a])).toEqual({ errorName: 'CouncilSignersNotAscending', args: [a.signer] });
    const stranger = await councilSignature(outsider, market, 1, 1);
    const withStranger = [a, stranger].sort((x, y) => (BigInt(x.signer) < BigInt(y.signer) ? -1 : 1));
    expect(await decide(withStranger)).toEqual({ errorName: 'NotCouncilMember', args: [outsider.address] });
    // Signatures over another outcome, or another round, do not count for this one.
    expect(await decide([a, b], 2)).toEqual({ errorName: 'BadSignature', args: [a.signer] });
    expect(await decide([a, await councilSignature(council[1]!, market, 1, 2)])).toEqual({ errorName: 'BadSignature', args: [b.signer] });

    const receipt = await send('MarketResolver', env.resolver, alice, 'councilDecide', [market, 1, [a, b]]);
    gas['councilDecide (2 of 3)'] = receipt.gasUsed;
    expect(eventsOf(receipt, 'CouncilDecided')).toEqual([{ market, outcome: 1, signers: [a.signer, b.signer] }]);
    expect(eventsOf(receipt, 'MarketResolved')).toEqual([{ market, outcome: 1, route: Route.Council, creatorSlashed: true }]);
    expect(await lmsrState(market)).toBe(State.Resolved);
    expect(await decide([a, b])).toEqual({ errorName: 'WrongPhase', args: [Phase.Resolved] });
  });

  it('decides a deadlocked vote, and counts every valid member signature given', async () => {
    const market = await createMarket({ n: 3, sym: 'USDC' });
    await disputeAndOpenVote(market, 1, 2);
    expect(await revertOf('MarketResolver', env.resolver, alice, 'councilDecide', [market, 1, []])).toEqual({ errorName: 'WrongPhase', args: [Phase.Voting] });
    await advance(VOTE_WINDOW);
    await send('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 1, Verdict.Deadlock, 0, keccak256('0x04'), 40]);
    expect((await recordOf(market)).phase).toBe(Phase.Council);
    const sigs = await Promise.all(council.map((m) => councilSignature(m, market, 0, 1)));
    const receipt = await send('MarketResolver', env.resolver, bob, 'councilDecide', [market, 0, sigs]);
    expect(eventsOf(receipt, 'CouncilDecided')).toEqual([{ market, outcome: 0, signers: council.map((m) => m.address) }]);
    expect(eventsOf(receipt, 'MarketResolved')).toEqual([{ market, outcome: 0, route: Route.Council, creatorSlashed: true }]);
    expect(await read('LmsrMarket', market, 'finalOutcome')).toBe(0);
  });
});

describe('roles and windows', () => {
  it('refuses a non-operator on openVote, recordVerdict, setCouncil and setWindows', async () => {
    const market = await createMarket();
    for (const [fn, args] of [
      ['openVote', [market]],
      ['recordVerdict', [market, 1, Verdict.Binding, 1, keccak256('0x05'), 1]],
      ['setCouncil', [[alice.address], 1n]],
      ['setWindows', [CHALLENGE_WINDOW, VOTE_WINDOW]],
    ] as const) {
      expect(await revertOf('MarketResolver', env.resolver, alice, fn, args), fn).toEqual({ errorName: 'NotOperator', args: [alice.address] });
    }
  });

  it('refuses a council with a bad threshold, a repeated member or the zero address, and replaces a good one', async () => {
    const set = (members: Address[], threshold: bigint) => revertOf('MarketResolver', env.resolver, owner, 'setCouncil', [members, threshold]);
    expect(await set([c1.address], 0n)).toEqual({ errorName: 'InvalidCouncilThreshold', args: [0n, 1n] });
    expect(await set([c1.address, c2.address], 3n)).toEqual({ errorName: 'InvalidCouncilThreshold', args: [3n, 2n] });
    expect(await set([], 1n)).toEqual({ errorName: 'InvalidCouncilThreshold', args: [1n, 0n] });
    expect(await set([c1.address, c2.address, c1.address], 2n)).toEqual({ errorName: 'DuplicateCouncilMember', args: [c1.address] });
    expect(await set([c1.address, zeroAddress], 1n)).toEqual({ errorName: 'ZeroAddress', args: [] });

    const replaced = await send('MarketResolver', env.resolver, owner, 'setCouncil', [[outsider.address], 1n]);
    expect(eventsOf(replaced, 'CouncilSet')).toEqual([{ members: [outsider.address], threshold: 1n }]);
    expect(await read('MarketResolver', env.resolver, 'isCouncilMember', [c1.address])).toBe(false);
    expect(await read('MarketResolver', env.resolver, 'councilMembers')).toEqual([outsider.address]);
    await send('MarketResolver', env.resolver, owner, 'setCouncil', [[c1.address, c2.address, c3.address], 2n]);
    expect(await read('MarketResolver', env.resolver, 'isCouncilMember', [outsider.address])).toBe(false);
  });

  it('refuses windows below the 2 h / 24 h floors unless short windows are allowed', async () => {
    const { abi, bytecode } = loadArtifact('MarketResolver');
    // viem does not decode a constructor's revert, so match the error's selector.
    await expect(kit.wallet(owner).deployContract({ abi, bytecode, args: [owner.address, env.pm, CREATION_BOND, CHALLENGE_WINDOW - 1, VOTE_WINDOW, false] })).rejects.toThrow(toFunctionSelector('WindowBelowFloor(uint32,uint32)'));
    const strict = await deploy('MarketResolver', [owner.address, env.pm, CREATION_BOND, CHALLENGE_WINDOW, VOTE_WINDOW, false]);
    expect(await read('MarketResolver', strict, 'shortWindowsAllowed')).toBe(false);
    expect(await revertOf('MarketResolver', strict, owner, 'setWindows', [CHALLENGE_WINDOW - 1, VOTE_WINDOW])).toEqual({ errorName: 'WindowBelowFloor', args: [CHALLENGE_WINDOW - 1, CHALLENGE_WINDOW] });
    expect(await revertOf('MarketResolver', strict, owner, 'setWindows', [CHALLENGE_WINDOW, VOTE_WINDOW - 1])).toEqual({ errorName: 'WindowBelowFloor', args: [VOTE_WINDOW - 1, VOTE_WINDOW] });
    const widened = await send('MarketResolver', strict, owner, 'setWindows', [CHALLENGE_WINDOW * 2, VOTE_WINDOW * 2]);
    expect(eventsOf(widened, 'WindowsSet')).toEqual([{ challengeWindow: CHALLENGE_WINDOW * 2, voteWindow: VOTE_WINDOW * 2 }]);

    // The local resolver takes short windows (never zero), and a proposal uses the window in force when it is made.
    expect(await revertOf('MarketResolver', env.resolver, owner, 'setWindows', [0, 60])).toEqual({ errorName: 'WindowBelowFloor', args: [0, 1] });
    await send('MarketResolver', env.resolver, owner, 'setWindows', [60, 60]);
    try {
      const market = await createMarket();
      const proposed = await propose(market, 1);
      expect(eventsOf(proposed, 'ResolutionProposed')[0]!.challengeDeadline).toBe((await kit.pub.getBlock({ blockNumber: proposed.blockNumber })).timestamp + 60n);
    } finally {
      await send('MarketResolver', env.resolver, owner, 'setWindows', [CHALLENGE_WINDOW, VOTE_WINDOW]);
    }
  });
});

describe('order-book markets', () => {
  async function createOrderBookMarket(): Promise<Address> {
    const receipt = await send('OrderBookMarketFactory', env.orderbookFactory, creator, 'createMarket', [keccak256(stringToHex(`ob ${++questionSeq}`)), (await now()) + 7n * DAY, RESOLUTION_WINDOW]);
    const [created] = parseEventLogs({ abi: loadArtifact('OrderBookMarketFactory').abi, logs: receipt.logs, eventName: 'MarketCreated' });
    return (created!.args as { market: Address }).market;
  }
  const obState = (market: Address) => read<number>('OrderBookMarket', market, 'state');

  it('resolve through the same calls: an undisputed proposal', async () => {
    const market = await createOrderBookMarket();
    expect(await read('OrderBookMarket', market, 'resolver')).toBe(env.resolver);
    expect(await read('OrderBookMarket', market, 'resolveBy')).toBe((await read<bigint>('OrderBookMarket', market, 'closeTime')) + BigInt(RESOLUTION_WINDOW));
    expect(await obState(market)).toBe(State.Open);
    expect(await revertOf('MarketResolver', env.resolver, creator, 'propose', [market, 3])).toEqual({ errorName: 'InvalidOutcome', args: [3, 2] });
    await propose(market, 2);
    expect(await obState(market)).toBe(State.Proposed);
    await advance(CHALLENGE_WINDOW);
    const receipt = await send('MarketResolver', env.resolver, alice, 'finalize', [market]);
    expect(eventsOf(receipt, 'MarketResolved')).toEqual([{ market, outcome: 2, route: Route.Undisputed, creatorSlashed: false }]);
    expect(await obState(market)).toBe(State.Resolved);
    expect(await read('OrderBookMarket', market, 'finalOutcome')).toBe(2);
    expect(await revertOf('OrderBookMarket', market, alice, 'onResolved', [1])).toEqual({ errorName: 'NotResolver', args: [alice.address] });
  });

  it('resolve through the same calls: a dispute settled by the council', async () => {
    const market = await createOrderBookMarket();
    await disputeAndOpenVote(market, 1, 2);
    expect(await obState(market)).toBe(State.Disputed);
    await advance(VOTE_WINDOW);
    await send('MarketResolver', env.resolver, owner, 'recordVerdict', [market, 1, Verdict.NoQuorum, 0, keccak256('0x06'), 0]);
    const sigs = [await councilSignature(council[0]!, market, 2, 1), await councilSignature(council[2]!, market, 2, 1)];
    await send('MarketResolver', env.resolver, bob, 'councilDecide', [market, 2, sigs]);
    expect(await obState(market)).toBe(State.Resolved);
    expect(await read('OrderBookMarket', market, 'finalOutcome')).toBe(2);
    expect(await recordOf(market)).toMatchObject({ route: Route.Council, creatorSlashed: true });
  });
});
