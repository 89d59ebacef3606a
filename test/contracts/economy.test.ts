// The economy contracts on a fresh anvil, from the committed artifacts: PmSale sells PM for a relayed USDC permit
// (signed with viem, submitted by another account) and delivers card orders once; ParticipationDistributor pays
// cumulative vouchers from the operator's signer, once per intent and only in their epoch. Every refusal is decoded
// by its custom error name. Time moves with evm_increaseTime / evm_mine, never by sleeping. Nothing is mocked.
import { hashTypedData, keccak256, parseEventLogs, parseSignature, parseUnits, stringToHex, toFunctionSelector, toHex, zeroAddress, type Address, type Hex, type PrivateKeyAccount, type TransactionReceipt } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilDevAccounts, startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { loadArtifact, type ContractName } from '../../src/chain/artifacts.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { contractKit } from '../support/contract-kit.ts';
import { DISTRIBUTION_TYPES, distributorDomain } from '../../src/core/participation/voucher.ts';

const keys = anvilDevAccounts() as Hex[];
const [owner, treasury, relayer, stranger, voucherSigner] = keys.slice(0, 5).map((k) => privateKeyToAccount(k)) as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount];

const PM_SUPPLY = parseUnits('1000000000', 18);
/** USDC base units per whole PM: one cent, as the service's default PM_PRICE_USDC. */
const PRICE = 10_000n;
/** $1 in USDC base units, as PM_RELAY_MIN_PAYMENT. */
const MIN_PAYMENT = 1_000_000n;
const SALE_INVENTORY = parseUnits('100000', 18);
const DISTRIBUTOR_FUNDS = parseUnits('10000', 18);
const RELEASE_ID = keccak256(stringToHex('svc participation release 1'));
const HOUR = 3_600n;

let anvil: AnvilHandle;
let kit: ReturnType<typeof contractKit>;
let pm: Address;
let usdc: Address;
const read = <T>(name: ContractName, address: Address, fn: string, args: readonly unknown[] = []) => kit.read<T>(name, address, fn, args);
const send = (name: ContractName, address: Address, from: PrivateKeyAccount, fn: string, args: readonly unknown[] = []) => kit.send(name, address, from, fn, args);
const revertOf = (name: ContractName, address: Address, from: PrivateKeyAccount, fn: string, args: readonly unknown[] = []) => kit.revertOf(name, address, from, fn, args);
const pmOf = (who: Address) => read<bigint>('ParticipationToken', pm, 'balanceOf', [who]);
const usdcOf = (who: Address) => read<bigint>('TestUSDC', usdc, 'balanceOf', [who]);
const advance = async (seconds: bigint) => {
  await rpc(anvil.rpcUrl, 'evm_increaseTime', [Number(seconds)]);
  await rpc(anvil.rpcUrl, 'evm_mine');
};
const eventOf = (name: ContractName, receipt: TransactionReceipt, eventName: string) =>
  parseEventLogs({ abi: loadArtifact(name).abi, logs: receipt.logs }).find((l) => l.eventName === eventName)?.args as Record<string, unknown> | undefined;

/** A fresh account with gas money, so every test starts from zero balances and unused nonces. */
async function freshAccount(): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await rpc(anvil.rpcUrl, 'anvil_setBalance', [account.address, toHex(parseUnits('10', 18))]);
  return account;
}

beforeAll(async () => {
  anvil = await startAnvil();
  kit = contractKit(anvil.rpcUrl, owner);
  pm = await kit.deploy('ParticipationToken', [owner.address, PM_SUPPLY]);
  usdc = await kit.deploy('TestUSDC', [owner.address]);
});

afterAll(async () => {
  await anvil?.stop();
});

describe('PmSale', () => {
  let sale: Address;

  /** An EIP-2612 permit on TestUSDC from `buyer` for spender = the sale, signed by `signer` (the buyer, or a forger). */
  async function permitFor(signer: PrivateKeyAccount, buyer: Address, value: bigint) {
    const nonce = await read<bigint>('TestUSDC', usdc, 'nonces', [buyer]);
    const deadline = (await kit.now()) + HOUR;
    const signature = await kit.wallet(signer).signTypedData({
      domain: { name: 'Test USD Coin', version: '1', chainId: anvil.chainId, verifyingContract: usdc },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: buyer, spender: sale, value, nonce, deadline },
    });
    const { r, s, v, yParity } = parseSignature(signature);
    return { deadline, v: Number(v ?? BigInt(yParity + 27)), r, s };
  }
  const buyArgs = (buyer: Address, paymentAmount: bigint, minPmOut: bigint, p: { deadline: bigint; v: number; r: Hex; s: Hex }) =>
    [buyer, paymentAmount, minPmOut, p.deadline, p.v, p.r, p.s] as const;

  async function fundedBuyer(usdcAmount: bigint): Promise<PrivateKeyAccount> {
    const buyer = await freshAccount();
    if (usdcAmount > 0n) await send('TestUSDC', usdc, owner, 'mint', [buyer.address, usdcAmount]);
    return buyer;
  }

  beforeAll(async () => {
    sale = await kit.deploy('PmSale', [owner.address, pm, usdc, treasury.address, PRICE, MIN_PAYMENT]);
    await send('ParticipationToken', pm, owner, 'transfer', [sale, SALE_INVENTORY]);
  });

  it('reports its configuration and quotes floor(payment × 10^18 ÷ price)', async () => {
    expect(await read<Address>('PmSale', sale, 'pm')).toBe(pm);
    expect(await read<Address>('PmSale', sale, 'usdc')).toBe(usdc);
    expect(await read<Address>('PmSale', sale, 'treasury')).toBe(treasury.address);
    expect(await read<bigint>('PmSale', sale, 'priceUsdcPerPm')).toBe(PRICE);
    expect(await read<bigint>('PmSale', sale, 'minPayment')).toBe(MIN_PAYMENT);
    expect(await read<Address>('PmSale', sale, 'owner')).toBe(owner.address);
    expect(await read<bigint>('PmSale', sale, 'quote', [1_000_000n])).toBe(parseUnits('100', 18));
    expect(await read<bigint>('PmSale', sale, 'quote', [1n])).toBe(10n ** 14n);
    expect(await read<bigint>('PmSale', sale, 'quote', [1_234_567n])).toBe((1_234_567n * 10n ** 18n) / PRICE);
  });

  it('sells PM for a permit relayed by another account: USDC buyer → treasury, PM sale → buyer', async () => {
    const payment = parseUnits('5', 6);
    const buyer = await fundedBuyer(parseUnits('7', 6));
    const pmOut = await read<bigint>('PmSale', sale, 'quote', [payment]);
    expect(pmOut).toBe(parseUnits('500', 18));
    const before = { treasury: await usdcOf(treasury.address), sale: await pmOf(sale), relayerUsdc: await usdcOf(relayer.address), relayerPm: await pmOf(relayer.address) };

    const permit = await permitFor(buyer, buyer.address, payment);
    const receipt = await send('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, payment, pmOut, permit));

    expect(receipt.from.toLowerCase()).toBe(relayer.address.toLowerCase());
    expect(eventOf('PmSale', receipt, 'Purchased')).toEqual({ buyer: buyer.address, paymentAmount: payment, pmOut });
    expect(await usdcOf(buyer.address)).toBe(parseUnits('2', 6));
    expect((await usdcOf(treasury.address)) - before.treasury).toBe(payment);
    expect(await pmOf(buyer.address)).toBe(pmOut);
    expect(before.sale - (await pmOf(sale))).toBe(pmOut);
    // The relayer only paid gas; the allowance was used up exactly.
    expect(await usdcOf(relayer.address)).toBe(before.relayerUsdc);
    expect(await pmOf(relayer.address)).toBe(before.relayerPm);
    expect(await read<bigint>('TestUSDC', usdc, 'allowance', [buyer.address, sale])).toBe(0n);
  });

  it('refuses a payment below the minimum', async () => {
    const buyer = await fundedBuyer(MIN_PAYMENT);
    const payment = MIN_PAYMENT - 1n;
    const permit = await permitFor(buyer, buyer.address, payment);
    expect(await revertOf('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, payment, 0n, permit))).toEqual({ errorName: 'AmountBelowMinimum', args: [payment, MIN_PAYMENT] });
  });

  it('refuses a quote below minPmOut, and a payment that buys nothing', async () => {
    const buyer = await fundedBuyer(MIN_PAYMENT);
    const permit = await permitFor(buyer, buyer.address, MIN_PAYMENT);
    const pmOut = parseUnits('100', 18);
    expect(await revertOf('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, MIN_PAYMENT, pmOut + 1n, permit))).toEqual({ errorName: 'QuoteMismatch', args: [pmOut, pmOut + 1n] });

    // A zero quote needs a zero minimum; with minPmOut 0 it would otherwise "buy" nothing for nothing.
    await send('PmSale', sale, owner, 'setMinPayment', [0n]);
    try {
      const zero = await permitFor(buyer, buyer.address, 0n);
      expect(await revertOf('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, 0n, 0n, zero))).toEqual({ errorName: 'QuoteMismatch', args: [0n, 0n] });
    } finally {
      await send('PmSale', sale, owner, 'setMinPayment', [MIN_PAYMENT]);
    }
  });

  it('refuses a purchase larger than the inventory before touching the permit', async () => {
    const payment = parseUnits('2000', 6); // 200,000 PM: twice the inventory
    const buyer = await fundedBuyer(payment);
    const permit = await permitFor(buyer, buyer.address, payment);
    const available = await pmOf(sale);
    expect(await revertOf('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, payment, 0n, permit))).toEqual({ errorName: 'InventoryShort', args: [available, parseUnits('200000', 18)] });
  });

  it('refuses a buyer who holds less USDC than the payment, even with a valid permit', async () => {
    const buyer = await fundedBuyer(parseUnits('0.5', 6));
    const permit = await permitFor(buyer, buyer.address, MIN_PAYMENT);
    expect(await revertOf('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, MIN_PAYMENT, 0n, permit))).toEqual({ errorName: 'InsufficientPaymentBalance', args: [parseUnits('0.5', 6), MIN_PAYMENT] });
  });

  it('a permit signed by another key moves nothing: the allowance is missing (ERC20InsufficientAllowance)', async () => {
    const buyer = await fundedBuyer(MIN_PAYMENT);
    const forged = await permitFor(stranger, buyer.address, MIN_PAYMENT);
    expect(await revertOf('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, MIN_PAYMENT, 0n, forged))).toEqual({ errorName: 'ERC20InsufficientAllowance', args: [sale, 0n, MIN_PAYMENT] });
    // The forger cannot route it through itself either.
    expect(await revertOf('PmSale', sale, stranger, 'buyWithPermit', buyArgs(buyer.address, MIN_PAYMENT, 0n, forged))).toMatchObject({ errorName: 'ERC20InsufficientAllowance' });
    expect(await usdcOf(buyer.address)).toBe(MIN_PAYMENT);
  });

  it('a permit a front-runner submitted first still lets the purchase through', async () => {
    const buyer = await fundedBuyer(MIN_PAYMENT);
    const permit = await permitFor(buyer, buyer.address, MIN_PAYMENT);
    await send('TestUSDC', usdc, stranger, 'permit', [buyer.address, sale, MIN_PAYMENT, permit.deadline, permit.v, permit.r, permit.s]);
    expect(await read<bigint>('TestUSDC', usdc, 'nonces', [buyer.address])).toBe(1n);

    const receipt = await send('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, MIN_PAYMENT, 0n, permit));
    expect(eventOf('PmSale', receipt, 'Purchased')).toEqual({ buyer: buyer.address, paymentAmount: MIN_PAYMENT, pmOut: parseUnits('100', 18) });
    expect(await pmOf(buyer.address)).toBe(parseUnits('100', 18));
    expect(await usdcOf(buyer.address)).toBe(0n);
    // The spent permit buys nothing a second time.
    expect(await revertOf('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, MIN_PAYMENT, 0n, permit))).toMatchObject({ errorName: 'InsufficientPaymentBalance' });
  });

  it('paused, it refuses purchases and deliveries (EnforcedPause); only the owner pauses', async () => {
    const buyer = await fundedBuyer(MIN_PAYMENT);
    const permit = await permitFor(buyer, buyer.address, MIN_PAYMENT);
    expect(await revertOf('PmSale', sale, stranger, 'pause')).toEqual({ errorName: 'OwnableUnauthorizedAccount', args: [stranger.address] });
    await send('PmSale', sale, owner, 'pause');
    try {
      expect(await read<boolean>('PmSale', sale, 'paused')).toBe(true);
      expect(await revertOf('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, MIN_PAYMENT, 0n, permit))).toEqual({ errorName: 'EnforcedPause', args: [] });
      expect(await revertOf('PmSale', sale, owner, 'deliver', [keccak256(stringToHex('paused order')), buyer.address, 1n])).toEqual({ errorName: 'EnforcedPause', args: [] });
    } finally {
      await send('PmSale', sale, owner, 'unpause');
    }
    await send('PmSale', sale, relayer, 'buyWithPermit', buyArgs(buyer.address, MIN_PAYMENT, 0n, permit));
    expect(await pmOf(buyer.address)).toBe(parseUnits('100', 18));
  });

  it('delivers a card order once; the second delivery of the same order reverts', async () => {
    const to = (await freshAccount()).address;
    const orderId = keccak256(stringToHex('cs_test_card_session_1'));
    const amount = parseUnits('500', 18);
    expect(await read<boolean>('PmSale', sale, 'delivered', [orderId])).toBe(false);
    expect(await revertOf('PmSale', sale, stranger, 'deliver', [orderId, to, amount])).toEqual({ errorName: 'OwnableUnauthorizedAccount', args: [stranger.address] });

    const receipt = await send('PmSale', sale, owner, 'deliver', [orderId, to, amount]);
    expect(eventOf('PmSale', receipt, 'Delivered')).toEqual({ orderId, to, amount });
    expect(await pmOf(to)).toBe(amount);
    expect(await read<boolean>('PmSale', sale, 'delivered', [orderId])).toBe(true);
    expect(await revertOf('PmSale', sale, owner, 'deliver', [orderId, to, amount])).toEqual({ errorName: 'AlreadyDelivered', args: [orderId] });

    const available = await pmOf(sale);
    const big = keccak256(stringToHex('cs_test_too_big'));
    expect(await revertOf('PmSale', sale, owner, 'deliver', [big, to, available + 1n])).toEqual({ errorName: 'InventoryShort', args: [available, available + 1n] });
  });

  it('the owner sets price and minimum (never a zero price) and withdraws inventory', async () => {
    expect(await revertOf('PmSale', sale, owner, 'setPrice', [0n])).toEqual({ errorName: 'InvalidPrice', args: [] });
    expect(await revertOf('PmSale', sale, stranger, 'setPrice', [1n])).toMatchObject({ errorName: 'OwnableUnauthorizedAccount' });
    expect(await revertOf('PmSale', sale, stranger, 'withdrawInventory', [stranger.address, 1n])).toMatchObject({ errorName: 'OwnableUnauthorizedAccount' });
    await send('PmSale', sale, owner, 'setPrice', [PRICE * 2n]);
    try {
      expect(await read<bigint>('PmSale', sale, 'quote', [MIN_PAYMENT])).toBe(parseUnits('50', 18));
    } finally {
      await send('PmSale', sale, owner, 'setPrice', [PRICE]);
    }
    const to = (await freshAccount()).address;
    const before = await pmOf(sale);
    const receipt = await send('PmSale', sale, owner, 'withdrawInventory', [to, parseUnits('1', 18)]);
    expect(eventOf('PmSale', receipt, 'InventoryWithdrawn')).toEqual({ to, amount: parseUnits('1', 18) });
    expect(before - (await pmOf(sale))).toBe(parseUnits('1', 18));
  });

  it('refuses a zero price at deployment', async () => {
    const { abi, bytecode } = loadArtifact('PmSale');
    // viem does not decode a constructor's revert, so match the error's selector.
    await expect(kit.wallet(owner).deployContract({ abi, bytecode, args: [owner.address, pm, usdc, treasury.address, 0n, MIN_PAYMENT] })).rejects.toThrow(toFunctionSelector('InvalidPrice()'));
    await expect(kit.wallet(owner).deployContract({ abi, bytecode, args: [owner.address, pm, usdc, zeroAddress, PRICE, MIN_PAYMENT] })).rejects.toThrow(toFunctionSelector('ZeroAddress()'));
  });
});

describe('ParticipationDistributor', () => {
  let dist: Address;
  let seq = 0;
  const intent = () => keccak256(stringToHex(`participation intent ${++seq}`));

  interface Voucher {
    account: Address;
    recipient: Address;
    cumulativeAmount: bigint;
    intentId: Hex;
    epoch: bigint;
    expiresAt: bigint;
  }
  // The service's own voucher definition: the contract must accept exactly what the service signs.
  const domain = () => distributorDomain(anvil.chainId, dist);
  const types = DISTRIBUTION_TYPES;

  async function voucher(v: Partial<Voucher> & { account: Address; cumulativeAmount: bigint }, signer = voucherSigner) {
    const full: Voucher = {
      recipient: v.account,
      intentId: intent(),
      epoch: await read<bigint>('ParticipationDistributor', dist, 'epoch'),
      expiresAt: (await kit.now()) + HOUR,
      ...v,
    };
    const signature = await kit.wallet(signer).signTypedData({ domain: domain(), types, primaryType: 'Distribution', message: full });
    return { ...full, signature, args: [full.account, full.recipient, full.cumulativeAmount, full.intentId, full.expiresAt, signature] as const };
  }

  beforeAll(async () => {
    dist = await kit.deploy('ParticipationDistributor', [owner.address, pm, RELEASE_ID, voucherSigner.address]);
    await send('ParticipationToken', pm, owner, 'transfer', [dist, DISTRIBUTOR_FUNDS]);
  });

  it('starts at epoch 1, and its digest and type hash are the ones off-chain code computes', async () => {
    expect(await read<bigint>('ParticipationDistributor', dist, 'epoch')).toBe(1n);
    expect(await read<Hex>('ParticipationDistributor', dist, 'releaseId')).toBe(RELEASE_ID);
    expect(await read<Address>('ParticipationDistributor', dist, 'token')).toBe(pm);
    expect(await read<Address>('ParticipationDistributor', dist, 'signer')).toBe(voucherSigner.address);
    expect(await read<Hex>('ParticipationDistributor', dist, 'DISTRIBUTION_TYPEHASH')).toBe(
      keccak256(stringToHex('Distribution(address account,address recipient,uint256 cumulativeAmount,bytes32 intentId,uint64 epoch,uint64 expiresAt)')),
    );
    const message = { account: stranger.address, recipient: relayer.address, cumulativeAmount: 7n, intentId: intent(), epoch: 3n, expiresAt: 1_900_000_000n };
    const onChain = await read<Hex>('ParticipationDistributor', dist, 'hashDistribution', [message.account, message.recipient, message.cumulativeAmount, message.intentId, message.epoch, message.expiresAt]);
    expect(onChain).toBe(hashTypedData({ domain: domain(), types, primaryType: 'Distribution', message }));
  });

  it('a member claims its own voucher (self_claim)', async () => {
    const member = await freshAccount();
    const v = await voucher({ account: member.address, cumulativeAmount: parseUnits('100', 18) });
    const receipt = await send('ParticipationDistributor', dist, member, 'claim', v.args);
    expect(eventOf('ParticipationDistributor', receipt, 'Distributed')).toEqual({
      intentId: v.intentId,
      account: member.address,
      recipient: member.address,
      amount: parseUnits('100', 18),
      cumulativeAmount: parseUnits('100', 18),
      epoch: 1n,
    });
    expect(await pmOf(member.address)).toBe(parseUnits('100', 18));
    expect(await read<bigint>('ParticipationDistributor', dist, 'paid', [member.address])).toBe(parseUnits('100', 18));
    expect(await read<boolean>('ParticipationDistributor', dist, 'intentUsed', [v.intentId])).toBe(true);
  });

  it('a third party pushes a voucher (protocol_push): the voucher recipient is paid, not the sender', async () => {
    const member = await freshAccount();
    const wallet = (await freshAccount()).address;
    const v = await voucher({ account: member.address, recipient: wallet, cumulativeAmount: parseUnits('40', 18) });
    const relayerBefore = await pmOf(relayer.address);
    const receipt = await send('ParticipationDistributor', dist, relayer, 'claim', v.args);
    expect(eventOf('ParticipationDistributor', receipt, 'Distributed')).toMatchObject({ account: member.address, recipient: wallet, amount: parseUnits('40', 18) });
    expect(await pmOf(wallet)).toBe(parseUnits('40', 18));
    expect(await pmOf(member.address)).toBe(0n);
    expect(await pmOf(relayer.address)).toBe(relayerBefore);
  });

  it('a cumulative second voucher pays only the delta; one that adds nothing is ZeroDelta', async () => {
    const member = await freshAccount();
    await send('ParticipationDistributor', dist, relayer, 'claim', (await voucher({ account: member.address, cumulativeAmount: parseUnits('100', 18) })).args);
    const second = await voucher({ account: member.address, cumulativeAmount: parseUnits('250', 18) });
    const receipt = await send('ParticipationDistributor', dist, relayer, 'claim', second.args);
    expect(eventOf('ParticipationDistributor', receipt, 'Distributed')).toMatchObject({ amount: parseUnits('150', 18), cumulativeAmount: parseUnits('250', 18) });
    expect(await pmOf(member.address)).toBe(parseUnits('250', 18));
    expect(await read<bigint>('ParticipationDistributor', dist, 'paid', [member.address])).toBe(parseUnits('250', 18));

    const repeat = await voucher({ account: member.address, cumulativeAmount: parseUnits('250', 18) });
    expect(await revertOf('ParticipationDistributor', dist, relayer, 'claim', repeat.args)).toEqual({ errorName: 'ZeroDelta', args: [parseUnits('250', 18), parseUnits('250', 18)] });
    const lower = await voucher({ account: member.address, cumulativeAmount: parseUnits('200', 18) });
    expect(await revertOf('ParticipationDistributor', dist, relayer, 'claim', lower.args)).toEqual({ errorName: 'ZeroDelta', args: [parseUnits('200', 18), parseUnits('250', 18)] });
  });

  it('a voucher pays once: its intent id is spent (IntentUsed), for any account', async () => {
    const member = await freshAccount();
    const v = await voucher({ account: member.address, cumulativeAmount: parseUnits('10', 18) });
    await send('ParticipationDistributor', dist, member, 'claim', v.args);
    expect(await revertOf('ParticipationDistributor', dist, relayer, 'claim', v.args)).toEqual({ errorName: 'IntentUsed', args: [v.intentId] });
    // A fresh voucher reusing the intent id for someone else is refused too.
    const other = await voucher({ account: stranger.address, cumulativeAmount: parseUnits('10', 18), intentId: v.intentId });
    expect(await revertOf('ParticipationDistributor', dist, relayer, 'claim', other.args)).toEqual({ errorName: 'IntentUsed', args: [v.intentId] });
  });

  it('refuses a voucher past its expiry (VoucherExpired)', async () => {
    const member = await freshAccount();
    const expiresAt = (await kit.now()) + 60n;
    const v = await voucher({ account: member.address, cumulativeAmount: parseUnits('10', 18), expiresAt });
    await advance(120n);
    expect(await revertOf('ParticipationDistributor', dist, member, 'claim', v.args)).toEqual({ errorName: 'VoucherExpired', args: [expiresAt] });
  });

  it('refuses a voucher signed by another key, or altered after signing (BadSignature)', async () => {
    const member = await freshAccount();
    const forged = await voucher({ account: member.address, cumulativeAmount: parseUnits('10', 18) }, stranger);
    expect(await revertOf('ParticipationDistributor', dist, member, 'claim', forged.args)).toEqual({ errorName: 'BadSignature', args: [] });
    const real = await voucher({ account: member.address, cumulativeAmount: parseUnits('10', 18) });
    const altered = [real.account, real.recipient, parseUnits('11', 18), real.intentId, real.expiresAt, real.signature] as const;
    expect(await revertOf('ParticipationDistributor', dist, member, 'claim', altered)).toEqual({ errorName: 'BadSignature', args: [] });
    const redirected = [real.account, stranger.address, real.cumulativeAmount, real.intentId, real.expiresAt, real.signature] as const;
    expect(await revertOf('ParticipationDistributor', dist, stranger, 'claim', redirected)).toEqual({ errorName: 'BadSignature', args: [] });
    const malformed = [real.account, real.recipient, real.cumulativeAmount, real.intentId, real.expiresAt, '0x1234'] as const;
    expect(await revertOf('ParticipationDistributor', dist, member, 'claim', malformed)).toEqual({ errorName: 'BadSignature', args: [] });
  });

  it('after advanceEpoch a voucher of the previous epoch is a BadSignature; one for the new epoch pays the delta', async () => {
    const member = await freshAccount();
    await send('ParticipationDistributor', dist, member, 'claim', (await voucher({ account: member.address, cumulativeAmount: parseUnits('30', 18) })).args);
    const stale = await voucher({ account: member.address, cumulativeAmount: parseUnits('50', 18) });
    const epoch = await read<bigint>('ParticipationDistributor', dist, 'epoch');

    expect(await revertOf('ParticipationDistributor', dist, stranger, 'advanceEpoch')).toEqual({ errorName: 'OwnableUnauthorizedAccount', args: [stranger.address] });
    const receipt = await send('ParticipationDistributor', dist, owner, 'advanceEpoch');
    expect(eventOf('ParticipationDistributor', receipt, 'EpochAdvanced')).toEqual({ epoch: epoch + 1n });
    expect(await read<bigint>('ParticipationDistributor', dist, 'epoch')).toBe(epoch + 1n);
    expect(await revertOf('ParticipationDistributor', dist, member, 'claim', stale.args)).toEqual({ errorName: 'BadSignature', args: [] });

    const fresh = await voucher({ account: member.address, cumulativeAmount: parseUnits('50', 18) });
    expect(fresh.epoch).toBe(epoch + 1n);
    const paid = await send('ParticipationDistributor', dist, member, 'claim', fresh.args);
    expect(eventOf('ParticipationDistributor', paid, 'Distributed')).toMatchObject({ amount: parseUnits('20', 18), cumulativeAmount: parseUnits('50', 18), epoch: epoch + 1n });
    expect(await pmOf(member.address)).toBe(parseUnits('50', 18));
  });

  it('a new signer voids the old signer\'s vouchers', async () => {
    const member = await freshAccount();
    const old = await voucher({ account: member.address, cumulativeAmount: parseUnits('5', 18) });
    expect(await revertOf('ParticipationDistributor', dist, owner, 'setSigner', [zeroAddress])).toEqual({ errorName: 'ZeroAddress', args: [] });
    await send('ParticipationDistributor', dist, owner, 'setSigner', [stranger.address]);
    try {
      expect(await revertOf('ParticipationDistributor', dist, member, 'claim', old.args)).toEqual({ errorName: 'BadSignature', args: [] });
      await send('ParticipationDistributor', dist, member, 'claim', (await voucher({ account: member.address, cumulativeAmount: parseUnits('5', 18) }, stranger)).args);
      expect(await pmOf(member.address)).toBe(parseUnits('5', 18));
    } finally {
      await send('ParticipationDistributor', dist, owner, 'setSigner', [voucherSigner.address]);
    }
  });

  it('refuses a claim larger than what it holds (InventoryShort)', async () => {
    const member = await freshAccount();
    const available = await pmOf(dist);
    const v = await voucher({ account: member.address, cumulativeAmount: available + 1n });
    expect(await revertOf('ParticipationDistributor', dist, member, 'claim', v.args)).toEqual({ errorName: 'InventoryShort', args: [available, available + 1n] });
  });

  it('paused, it refuses claims (EnforcedPause); the owner still withdraws', async () => {
    const member = await freshAccount();
    const v = await voucher({ account: member.address, cumulativeAmount: parseUnits('1', 18) });
    expect(await revertOf('ParticipationDistributor', dist, stranger, 'pause')).toMatchObject({ errorName: 'OwnableUnauthorizedAccount' });
    await send('ParticipationDistributor', dist, owner, 'pause');
    try {
      expect(await revertOf('ParticipationDistributor', dist, member, 'claim', v.args)).toEqual({ errorName: 'EnforcedPause', args: [] });
      const to = (await freshAccount()).address;
      const receipt = await send('ParticipationDistributor', dist, owner, 'withdraw', [to, parseUnits('2', 18)]);
      expect(eventOf('ParticipationDistributor', receipt, 'Withdrawn')).toEqual({ to, amount: parseUnits('2', 18) });
      expect(await pmOf(to)).toBe(parseUnits('2', 18));
      expect(await revertOf('ParticipationDistributor', dist, stranger, 'withdraw', [stranger.address, 1n])).toMatchObject({ errorName: 'OwnableUnauthorizedAccount' });
    } finally {
      await send('ParticipationDistributor', dist, owner, 'unpause');
    }
    await send('ParticipationDistributor', dist, member, 'claim', v.args);
    expect(await pmOf(member.address)).toBe(parseUnits('1', 18));
  });
});
