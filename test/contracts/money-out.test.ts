// Money out of an automated market, on a fresh anvil from the committed artifacts: redemption after resolution (a
// winning share pays one unit, void pays the equal split, burned shares never pay twice), creator fees and the
// residual only ever to the creator, the bond returned or slashed 5/20/75 with the voters' part paid against the
// resolver's ballot commitment, and many claims in one PayoutRouter transaction. Anyone sends these; only the
// holder, creator, voters or treasury are paid. Time moves with evm_increaseTime / evm_mine.
import { keccak256, parseEventLogs, parseUnits, stringToHex, type Address, type Hex, type PrivateKeyAccount, type TransactionReceipt } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilDevAccounts, startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { loadArtifact, type ContractName } from '../../src/chain/artifacts.ts';
import { BOND_SLASH_SPLIT } from '../../src/core/markets/fees.ts';
import { ballotLeaf, ballotsRoot, type CountedBallot } from '../../src/core/resolution/votes.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { contractKit } from '../support/contract-kit.ts';

const keys = anvilDevAccounts() as Hex[];
const [owner, treasury, creator, alice, bob, carol, keeper, v1, v2, v3] = keys.slice(0, 10).map((k) => privateKeyToAccount(k)) as PrivateKeyAccount[] as [
  PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount,
];
const MAX_UINT = 2n ** 256n - 1n;
const HOUR = 3_600n;
const BOND = parseUnits('100', 18);
const FLOOR = parseUnits('100', 18);
const SHARES = parseUnits('50', 18);

let anvil: AnvilHandle;
let kit: ReturnType<typeof contractKit>;
let pm: Address;
let resolver: Address;
let router: Address;
let factory: Address;
let outcomeToken: Address;
let payoutRouter: Address;
const read = <T>(name: ContractName, address: Address, fn: string, args: readonly unknown[] = []) => kit.read<T>(name, address, fn, args);
const send = (name: ContractName, address: Address, from: PrivateKeyAccount, fn: string, args: readonly unknown[] = []) => kit.send(name, address, from, fn, args);
const pmOf = (who: Address) => read<bigint>('ParticipationToken', pm, 'balanceOf', [who]);
const sharesOf = (market: Address, who: Address, outcome: number) => read<bigint>('OutcomeToken', outcomeToken, 'balanceOf', [who, BigInt(market) * 256n + BigInt(outcome)]);
const advance = async (s: bigint) => {
  await rpc(anvil.rpcUrl, 'evm_increaseTime', [Number(s)]);
  await rpc(anvil.rpcUrl, 'evm_mine');
};
const eventOf = (receipt: TransactionReceipt, eventName: string) =>
  parseEventLogs({ abi: loadArtifact('LmsrMarket').abi, logs: receipt.logs }).find((l) => l.eventName === eventName)?.args as Record<string, unknown>;
const gas: Record<string, bigint> = {};

beforeAll(async () => {
  anvil = await startAnvil();
  kit = contractKit(anvil.rpcUrl, owner);
  pm = await kit.deploy('ParticipationToken', [owner.address, parseUnits('1000000000', 18)]);
  outcomeToken = await kit.deploy('OutcomeToken', [owner.address]);
  resolver = await kit.deploy('MarketResolver', [owner.address, pm, BOND, 7_200, 86_400, true]);
  const implementation = await kit.deploy('LmsrMarket', [outcomeToken, pm, resolver]);
  router = await kit.deploy('TradeRouter', [pm, outcomeToken, owner.address]);
  factory = await kit.deploy('LmsrMarketFactory', [2, implementation, owner.address, treasury.address, 100, 300, BOND]);
  payoutRouter = await kit.deploy('PayoutRouter', []);
  await send('OutcomeToken', outcomeToken, owner, 'setFactory', [factory, true]);
  await send('TradeRouter', router, owner, 'setFactory', [factory, true]);
  await send('LmsrMarketFactory', factory, owner, 'setCollateral', [pm, router, FLOOR]);
  await send('MarketResolver', resolver, owner, 'setCouncil', [[owner.address], 1n]);
  for (const who of [creator, alice, bob, carol]) {
    await send('ParticipationToken', pm, owner, 'transfer', [who.address, parseUnits('1000000', 18)]);
    await send('ParticipationToken', pm, who, 'approve', [who === creator ? factory : router, MAX_UINT]);
  }
  await send('ParticipationToken', pm, carol, 'approve', [resolver, MAX_UINT]);
});

afterAll(async () => {
  if (Object.keys(gas).length > 0) console.info(`money-out gas:\n${Object.entries(gas).map(([k, v]) => `  ${k}: ${v}`).join('\n')}`);
  await anvil?.stop();
});

let seq = 0;
async function market(): Promise<Address> {
  const closeTime = (await kit.now()) + 30n * 86_400n;
  const receipt = await send('LmsrMarketFactory', factory, creator, 'createMarket', [pm, keccak256(stringToHex(`money out ${++seq}`)), closeTime, 3 * 86_400, FLOOR, 100, 100, BOND]);
  const [created] = parseEventLogs({ abi: loadArtifact('LmsrMarketFactory').abi, logs: receipt.logs, eventName: 'MarketCreated' });
  return (created!.args as { market: Address }).market;
}
const buy = async (m: Address, from: PrivateKeyAccount, outcome: number, shares = SHARES) =>
  send('TradeRouter', router, from, 'executeTradeIntent', [{ market: m, outcome, isBuy: true, shares, limit: MAX_UINT, deadline: (await kit.now()) + HOUR, recipient: from.address }]);
async function resolveUndisputed(m: Address, outcome: number): Promise<void> {
  await send('MarketResolver', resolver, creator, 'propose', [m, outcome]);
  await advance(7_201n);
  await send('MarketResolver', resolver, keeper, 'finalize', [m]);
}

describe('redemption', () => {
  it('pays one unit per winning share to the holder, whoever sends it, once; losers and strangers get nothing', async () => {
    const m = await market();
    await buy(m, alice, 0);
    await buy(m, bob, 1, parseUnits('30', 18));
    expect(await kit.revertOf('LmsrMarket', m, keeper, 'redeem', [alice.address])).toMatchObject({ errorName: 'NotResolved' });
    expect(await kit.revertOf('LmsrMarket', m, keeper, 'sweepResidual', [])).toMatchObject({ errorName: 'NotResolved' });
    expect(await kit.revertOf('LmsrMarket', m, keeper, 'collectCreatorFees', [])).toMatchObject({ errorName: 'CreatorFeesLocked' });
    await resolveUndisputed(m, 1);

    const before = await pmOf(alice.address);
    const keeperBefore = await pmOf(keeper.address);
    const receipt = await send('LmsrMarket', m, keeper, 'redeem', [alice.address]);
    gas['redeem (one market, direct)'] = receipt.gasUsed;
    expect(eventOf(receipt, 'Redeemed')).toEqual({ holder: alice.address, finalOutcome: 1, shares: SHARES, payout: SHARES });
    expect((await pmOf(alice.address)) - before).toBe(SHARES);
    expect(await sharesOf(m, alice.address, 0)).toBe(0n); // burned: nothing to redeem twice
    expect(eventOf(await send('LmsrMarket', m, keeper, 'redeem', [alice.address]), 'Redeemed')).toMatchObject({ shares: 0n, payout: 0n });
    expect(eventOf(await send('LmsrMarket', m, keeper, 'redeem', [bob.address]), 'Redeemed')).toMatchObject({ shares: 0n, payout: 0n });
    expect(await sharesOf(m, bob.address, 1)).toBe(parseUnits('30', 18)); // a losing share stays, worth nothing
    expect(await pmOf(keeper.address)).toBeLessThanOrEqual(keeperBefore); // the sender is paid nothing (gas only)
  });

  it('void pays every share an equal split of one unit', async () => {
    const m = await market();
    await buy(m, alice, 0, parseUnits('30', 18));
    await buy(m, alice, 1, parseUnits('30', 18));
    await buy(m, bob, 1, parseUnits('9', 18));
    await resolveUndisputed(m, 0);
    const before = await pmOf(alice.address);
    const receipt = await send('LmsrMarket', m, keeper, 'redeem', [alice.address]);
    expect(eventOf(receipt, 'Redeemed')).toEqual({ holder: alice.address, finalOutcome: 0, shares: parseUnits('60', 18), payout: parseUnits('30', 18) });
    expect((await pmOf(alice.address)) - before).toBe(parseUnits('30', 18));
    expect(eventOf(await send('LmsrMarket', m, keeper, 'redeem', [bob.address]), 'Redeemed')).toMatchObject({ payout: parseUnits('4.5', 18) });
  });
});

describe('creator funds, bond and residual', () => {
  it('splits a slashed bond as /discover/rules publishes it', async () => {
    const m = await market();
    expect(Number(await read<number>('LmsrMarket', m, 'SLASH_KEEPER_BPS')) / 100).toBe(BOND_SLASH_SPLIT.keeper);
    expect(Number(await read<number>('LmsrMarket', m, 'SLASH_VOTERS_BPS')) / 100).toBe(BOND_SLASH_SPLIT.voters);
    expect(BOND_SLASH_SPLIT.keeper + BOND_SLASH_SPLIT.voters + BOND_SLASH_SPLIT.treasury).toBe(100);
  });

  it('an undisputed market: fees, bond and residual go to the creator, whoever sends them; the market ends empty', async () => {
    const m = await market();
    await buy(m, alice, 0);
    await buy(m, bob, 1, parseUnits('20', 18));
    await resolveUndisputed(m, 1);
    const fees = await read<bigint>('LmsrMarket', m, 'creatorFees');
    expect(fees).toBeGreaterThan(0n);
    const start = await pmOf(creator.address);

    const collected = await send('LmsrMarket', m, keeper, 'collectCreatorFees', []);
    expect(eventOf(collected, 'CreatorFeesCollected')).toEqual({ creator: creator.address, amount: fees });
    const settled = await send('LmsrMarket', m, keeper, 'settleBond', []);
    expect(eventOf(settled, 'BondReturned')).toEqual({ creator: creator.address, amount: BOND });
    expect(await kit.revertOf('LmsrMarket', m, keeper, 'settleBond', [])).toMatchObject({ errorName: 'BondAlreadySettled' });

    // The residual keeps back exactly the unredeemed winning shares.
    const held = await pmOf(m);
    const residual = await read<bigint>('LmsrMarket', m, 'residual');
    expect(residual).toBe(held - SHARES);
    const swept = await send('LmsrMarket', m, keeper, 'sweepResidual', []);
    gas.sweepResidual = swept.gasUsed;
    expect(eventOf(swept, 'ResidualSwept')).toEqual({ creator: creator.address, amount: residual });
    expect(await read<bigint>('LmsrMarket', m, 'residual')).toBe(0n);
    expect(eventOf(await send('LmsrMarket', m, keeper, 'sweepResidual', []), 'ResidualSwept')).toBeUndefined(); // nothing left
    expect((await pmOf(creator.address)) - start).toBe(fees + BOND + residual);
    await send('LmsrMarket', m, keeper, 'redeem', [alice.address]);
    expect(await pmOf(m)).toBe(0n); // every unit accounted for
  });

  it('a creator overturned by a binding vote: the bond splits 5/20/75 to the wei, the voters paid against the ballot commitment', async () => {
    const m = await market();
    await buy(m, alice, 0);
    await send('MarketResolver', resolver, creator, 'propose', [m, 1]);
    await send('MarketResolver', resolver, carol, 'challenge', [m, 2]);
    await send('MarketResolver', resolver, owner, 'openVote', [m]);
    const ballots: CountedBallot[] = [
      { wallet: v1.address.toLowerCase(), outcome: 2, signature: '0x11' },
      { wallet: v2.address.toLowerCase(), outcome: 2, signature: '0x22' },
      { wallet: v3.address.toLowerCase(), outcome: 1, signature: '0x33' },
    ];
    await advance(86_401n);
    await send('MarketResolver', resolver, owner, 'recordVerdict', [m, 1, 0, 2, ballotsRoot(ballots), ballots.length]);

    const before = { keeper: await pmOf(keeper.address), treasury: await pmOf(treasury.address), creator: await pmOf(creator.address) };
    const slashed = await send('LmsrMarket', m, keeper, 'settleBond', []);
    const keeperCut = (BOND * 500n) / 10_000n;
    const voterPool = (BOND * 2_000n) / 10_000n;
    expect(eventOf(slashed, 'BondSlashed')).toEqual({ keeper: keeper.address, keeperCut, voterPool, treasuryCut: BOND - keeperCut - voterPool });
    expect((await pmOf(keeper.address)) - before.keeper).toBe(keeperCut);
    expect((await pmOf(treasury.address)) - before.treasury).toBe(BOND - keeperCut - voterPool);
    expect(await pmOf(creator.address)).toBe(before.creator);

    // The leaves ascending, as the commitment hashes them; any other set is refused.
    const sorted = [...ballots].sort((a, b) => (ballotLeaf(a) < ballotLeaf(b) ? -1 : 1)).map((b) => ({ wallet: b.wallet, outcome: b.outcome, signatureHash: keccak256(b.signature) }));
    expect(await kit.revertOf('LmsrMarket', m, keeper, 'distributeVoterRewards', [sorted.slice(0, 2)])).toMatchObject({ errorName: 'BallotsMismatch' });
    expect(await kit.revertOf('LmsrMarket', m, keeper, 'distributeVoterRewards', [[...sorted].reverse()])).toMatchObject({ errorName: 'BallotsMismatch' });
    const forged = sorted.map((b) => (b.wallet === v3.address.toLowerCase() ? { ...b, outcome: 2 } : b));
    expect(await kit.revertOf('LmsrMarket', m, keeper, 'distributeVoterRewards', [forged])).toMatchObject({ errorName: 'BallotsMismatch' });
    const v = { v1: await pmOf(v1.address), v2: await pmOf(v2.address), v3: await pmOf(v3.address) };
    const paid = await send('LmsrMarket', m, keeper, 'distributeVoterRewards', [sorted]);
    expect(eventOf(paid, 'VoterRewardsPaid')).toEqual({ winners: 2n, perVoter: voterPool / 2n, remainder: 0n });
    expect((await pmOf(v1.address)) - v.v1).toBe(voterPool / 2n);
    expect((await pmOf(v2.address)) - v.v2).toBe(voterPool / 2n);
    expect(await pmOf(v3.address)).toBe(v.v3); // voted for the losing outcome
    expect(await kit.revertOf('LmsrMarket', m, keeper, 'distributeVoterRewards', [sorted])).toMatchObject({ errorName: 'NoVoterPool' });

    // The challenger was right: its bond comes back, once.
    const carolBefore = await pmOf(carol.address);
    await send('MarketResolver', resolver, keeper, 'settleChallengeBond', [m]);
    expect((await pmOf(carol.address)) - carolBefore).toBe(BOND);
    expect(await kit.revertOf('MarketResolver', resolver, keeper, 'settleChallengeBond', [m])).toMatchObject({ errorName: 'NoChallengeBond' });
  });

  it('a challenge the vote rejected: the challenge bond goes to the creator, whose bond comes back', async () => {
    const m = await market();
    await send('MarketResolver', resolver, creator, 'propose', [m, 1]);
    await send('MarketResolver', resolver, carol, 'challenge', [m, 2]);
    expect(await kit.revertOf('MarketResolver', resolver, keeper, 'settleChallengeBond', [m])).toMatchObject({ errorName: 'WrongPhase' });
    await send('MarketResolver', resolver, owner, 'openVote', [m]);
    const ballots: CountedBallot[] = [{ wallet: v1.address.toLowerCase(), outcome: 1, signature: '0x44' }];
    await advance(86_401n);
    await send('MarketResolver', resolver, owner, 'recordVerdict', [m, 1, 0, 1, ballotsRoot(ballots), 1]);
    const creatorBefore = await pmOf(creator.address);
    expect(eventOf(await send('LmsrMarket', m, keeper, 'settleBond', []), 'BondReturned')).toEqual({ creator: creator.address, amount: BOND });
    const settled = await send('MarketResolver', resolver, keeper, 'settleChallengeBond', [m]);
    const [log] = parseEventLogs({ abi: loadArtifact('MarketResolver').abi, logs: settled.logs, eventName: 'ChallengeBondSettled' });
    expect(log!.args).toEqual({ market: m, to: creator.address, amount: BOND, refunded: false });
    expect((await pmOf(creator.address)) - creatorBefore).toBe(2n * BOND);
  });

  it('a creator overturned by the council: no binding vote, so the voters’ part goes to the treasury', async () => {
    const m = await market();
    await send('MarketResolver', resolver, creator, 'propose', [m, 1]);
    await send('MarketResolver', resolver, carol, 'challenge', [m, 2]);
    await send('MarketResolver', resolver, owner, 'openVote', [m]);
    await advance(86_401n);
    await send('MarketResolver', resolver, owner, 'recordVerdict', [m, 1, 1, 0, `0x${'0'.repeat(64)}`, 0]);
    const domain = { name: 'MarketResolver', version: '1', chainId: 8453, verifyingContract: resolver } as const;
    const signature = await owner.signTypedData({ domain, types: { CouncilDecision: [{ name: 'market', type: 'address' }, { name: 'outcome', type: 'uint8' }, { name: 'round', type: 'uint8' }] }, primaryType: 'CouncilDecision', message: { market: m, outcome: 2, round: 1 } });
    await send('MarketResolver', resolver, keeper, 'councilDecide', [m, 2, [{ signer: owner.address, signature }]]);
    const treasuryBefore = await pmOf(treasury.address);
    const slashed = await send('LmsrMarket', m, keeper, 'settleBond', []);
    expect(eventOf(slashed, 'BondSlashed')).toEqual({ keeper: keeper.address, keeperCut: BOND / 20n, voterPool: 0n, treasuryCut: BOND - BOND / 20n });
    expect((await pmOf(treasury.address)) - treasuryBefore).toBe(BOND - BOND / 20n);
    expect(await kit.revertOf('LmsrMarket', m, keeper, 'distributeVoterRewards', [[]])).toMatchObject({ errorName: 'NoVoterPool' });
  });
});

describe('the residual never takes what is owed', () => {
  it('a void PM market swept before anyone redeemed or the bond settled: every holder and the bond are still paid in full', async () => {
    const m = await market();
    await buy(m, alice, 0, parseUnits('33', 18));
    await buy(m, bob, 1, parseUnits('11', 18));
    await buy(m, bob, 0, parseUnits('1', 18));
    await resolveUndisputed(m, 0);
    const creatorBefore = await pmOf(creator.address);
    const swept = eventOf(await send('LmsrMarket', m, keeper, 'sweepResidual', []), 'ResidualSwept');
    expect((swept.amount as bigint) > 0n).toBe(true);
    expect((await pmOf(creator.address)) - creatorBefore).toBe(swept.amount);
    // Everything owed is still there: both holders' equal split, the fees and the bond.
    expect(eventOf(await send('LmsrMarket', m, keeper, 'redeem', [alice.address]), 'Redeemed')).toMatchObject({ payout: parseUnits('16.5', 18) });
    expect(eventOf(await send('LmsrMarket', m, keeper, 'redeem', [bob.address]), 'Redeemed')).toMatchObject({ payout: parseUnits('6', 18) });
    await send('LmsrMarket', m, keeper, 'collectCreatorFees', []);
    expect(eventOf(await send('LmsrMarket', m, keeper, 'settleBond', []), 'BondReturned')).toMatchObject({ amount: BOND });
    // What is left is the rounding the void split kept back, sweepable now, and nothing is owed any more.
    await send('LmsrMarket', m, keeper, 'sweepResidual', []);
    expect(await pmOf(m)).toBe(0n);
  });
});

describe('PayoutRouter', () => {
  it('redeems many holders across markets in one transaction, skipping a claim that cannot be paid yet', async () => {
    const markets = [await market(), await market(), await market()];
    for (const m of markets) {
      await buy(m, alice, 0, parseUnits('10', 18));
      await buy(m, bob, 0, parseUnits('20', 18));
    }
    const open = await market();
    for (const m of markets) await send('MarketResolver', resolver, creator, 'propose', [m, 1]);
    await advance(7_201n);
    for (const m of markets) await send('MarketResolver', resolver, keeper, 'finalize', [m]);

    const claims = [...markets.flatMap((m) => [{ market: m, holder: alice.address }, { market: m, holder: bob.address }]), { market: open, holder: alice.address }];
    const before = { alice: await pmOf(alice.address), bob: await pmOf(bob.address) };
    const receipt = await send('PayoutRouter', payoutRouter, keeper, 'redeemMany', [claims]);
    gas['redeemMany (6 claims + 1 skipped)'] = receipt.gasUsed;
    gas['redeemMany per claim'] = receipt.gasUsed / 6n;
    expect((await pmOf(alice.address)) - before.alice).toBe(parseUnits('30', 18));
    expect((await pmOf(bob.address)) - before.bob).toBe(parseUnits('60', 18));
    const skipped = parseEventLogs({ abi: loadArtifact('PayoutRouter').abi, logs: receipt.logs, eventName: 'ClaimSkipped' });
    expect(skipped.map((l) => (l.args as { market: Address }).market)).toEqual([open]);
    expect(await pmOf(payoutRouter)).toBe(0n);
  });
});
