// Deploys the token contracts from the committed artifacts onto a real anvil and checks ERC20, ownership and
// EIP-2612 behaviour, plus that artifacts match both the deployed code and the sources (their sourceHash).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BaseError,
  ContractFunctionRevertedError,
  concat,
  createPublicClient,
  createWalletClient,
  http,
  keccak256,
  parseSignature,
  parseUnits,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilDevAccounts, startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { sourceHash, sourceTree } from '../../scripts/contract-sources.ts';
import { CONTRACT_NAMES, artifactParityHash, loadArtifact, runtimeCodeHashOf, type ContractName } from '../../src/chain/artifacts.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const [holderKey, strangerKey, spenderKey] = anvilDevAccounts() as [Hex, Hex, Hex];
const holder = privateKeyToAccount(holderKey);
const stranger = privateKeyToAccount(strangerKey);
const spender = privateKeyToAccount(spenderKey);
const PM_SUPPLY = parseUnits('1000000', 18);

let anvil: AnvilHandle;
let pub: ReturnType<typeof makePublic>;
const chain = { ...foundry, id: 8453 };

function makePublic(rpcUrl: string) {
  return createPublicClient({ chain, transport: http(rpcUrl) });
}
function wallet(account: PrivateKeyAccount) {
  return createWalletClient({ chain, transport: http(anvil.rpcUrl), account });
}

async function deploy(name: ContractName, args: readonly unknown[]): Promise<Address> {
  const { abi, bytecode } = loadArtifact(name);
  const hash = await wallet(holder).deployContract({ abi, bytecode, args });
  const receipt = await pub.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress || receipt.status !== 'success') throw new Error(`deploying ${name} failed`);
  return receipt.contractAddress;
}

function read(name: ContractName, address: Address, functionName: string, args: readonly unknown[] = []): Promise<unknown> {
  return pub.readContract({ address, abi: loadArtifact(name).abi, functionName, args });
}

async function send(name: ContractName, address: Address, from: PrivateKeyAccount, functionName: string, args: readonly unknown[]): Promise<void> {
  const hash = await wallet(from).writeContract({ address, abi: loadArtifact(name).abi, functionName, args });
  const receipt = await pub.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
}

/** Runs the call as `from` via eth_call and returns the decoded custom error it reverts with. */
async function revertOf(name: ContractName, address: Address, from: PrivateKeyAccount, functionName: string, args: readonly unknown[]) {
  try {
    await pub.simulateContract({ address, abi: loadArtifact(name).abi, functionName, args, account: from });
  } catch (err) {
    const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
    if (reverted instanceof ContractFunctionRevertedError) return { errorName: reverted.data?.errorName, args: reverted.data?.args };
    throw err;
  }
  throw new Error(`${functionName} did not revert`);
}

async function signPermit(token: ContractName, address: Address, signer: PrivateKeyAccount, owner: Address, value: bigint, deadline: bigint) {
  // Domain comes from the contract (ERC-5267) so the test checks the domain, not an assumption about it.
  const [, name, version, chainId, verifyingContract] = (await read(token, address, 'eip712Domain')) as [Hex, string, string, bigint, Address];
  const nonce = (await read(token, address, 'nonces', [owner])) as bigint;
  const signature = await wallet(signer).signTypedData({
    domain: { name, version, chainId, verifyingContract },
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
    message: { owner, spender: spender.address, value, nonce, deadline },
  });
  const { r, s, v, yParity } = parseSignature(signature);
  return [owner, spender.address, value, deadline, v ?? BigInt(yParity + 27), r, s] as const;
}

async function futureDeadline(): Promise<bigint> {
  const block = await pub.getBlock();
  return block.timestamp + 3_600n;
}

beforeAll(async () => {
  anvil = await startAnvil();
  pub = makePublic(anvil.rpcUrl);
});
afterAll(async () => {
  await anvil?.stop();
});

describe('ParticipationToken', () => {
  it('has 18 decimals, symbol PM, and the whole supply at the initial holder', async () => {
    const pm = await deploy('ParticipationToken', [holder.address, PM_SUPPLY]);
    expect(await read('ParticipationToken', pm, 'decimals')).toBe(18);
    expect(await read('ParticipationToken', pm, 'symbol')).toBe('PM');
    expect(await read('ParticipationToken', pm, 'name')).toBe('svc Participation');
    expect(await read('ParticipationToken', pm, 'totalSupply')).toBe(PM_SUPPLY);
    expect(await read('ParticipationToken', pm, 'balanceOf', [holder.address])).toBe(PM_SUPPLY);
  });

  it('exposes no privileged functions', () => {
    const writes = loadArtifact('ParticipationToken')
      .abi.filter((item) => item.type === 'function' && item.stateMutability !== 'view' && item.stateMutability !== 'pure')
      .map((item) => (item.type === 'function' ? item.name : ''))
      .sort();
    expect(writes).toEqual(['approve', 'permit', 'transfer', 'transferFrom']);
  });
});

describe('TestUSDC', () => {
  it('has 6 decimals and symbol USDC, and only the owner can mint', async () => {
    const usdc = await deploy('TestUSDC', [holder.address]);
    expect(await read('TestUSDC', usdc, 'decimals')).toBe(6);
    expect(await read('TestUSDC', usdc, 'symbol')).toBe('USDC');
    expect(await read('TestUSDC', usdc, 'name')).toBe('Test USD Coin');
    expect(await read('TestUSDC', usdc, 'owner')).toBe(holder.address);

    const amount = parseUnits('250.5', 6);
    await send('TestUSDC', usdc, holder, 'mint', [stranger.address, amount]);
    expect(await read('TestUSDC', usdc, 'balanceOf', [stranger.address])).toBe(amount);
    expect(await read('TestUSDC', usdc, 'totalSupply')).toBe(amount);

    const denied = await revertOf('TestUSDC', usdc, stranger, 'mint', [stranger.address, amount]);
    expect(denied).toEqual({ errorName: 'OwnableUnauthorizedAccount', args: [stranger.address] });
  });
});

describe.each(['ParticipationToken', 'TestUSDC'] as const)('%s EIP-2612 permit', (token) => {
  let address: Address;
  const value = 1_000_000n;

  beforeAll(async () => {
    if (token === 'ParticipationToken') {
      address = await deploy(token, [holder.address, PM_SUPPLY]);
    } else {
      address = await deploy(token, [holder.address]);
      await send(token, address, holder, 'mint', [holder.address, value * 10n]);
    }
  });

  it('accepts a real signature from the owner, submitted by the spender', async () => {
    const args = await signPermit(token, address, holder, holder.address, value, await futureDeadline());
    await send(token, address, spender, 'permit', args);
    expect(await read(token, address, 'allowance', [holder.address, spender.address])).toBe(value);
    expect(await read(token, address, 'nonces', [holder.address])).toBe(1n);

    await send(token, address, spender, 'transferFrom', [holder.address, spender.address, value]);
    expect(await read(token, address, 'balanceOf', [spender.address])).toBe(value);

    // The nonce moved on, so the same signature now recovers to some other address.
    const replay = await revertOf(token, address, spender, 'permit', args);
    expect(replay.errorName).toBe('ERC2612InvalidSigner');
  });

  it('rejects a signature from someone other than the owner', async () => {
    const args = await signPermit(token, address, stranger, holder.address, value, await futureDeadline());
    const res = await revertOf(token, address, spender, 'permit', args);
    expect(res).toEqual({ errorName: 'ERC2612InvalidSigner', args: [stranger.address, holder.address] });
  });

  it('rejects an expired permit', async () => {
    const block = await pub.getBlock();
    const args = await signPermit(token, address, holder, holder.address, value, block.timestamp - 1n);
    const res = await revertOf(token, address, spender, 'permit', args);
    expect(res.errorName).toBe('ERC2612ExpiredSignature');
  });
});

describe('artifacts', () => {
  // The market contracts have their own deployment check in markets.test.ts.
  it.each(['ParticipationToken', 'TestUSDC'] as const)('%s runtimeCodeHash matches the deployed code once immutables are masked', async (name) => {
    const args = name === 'ParticipationToken' ? [holder.address, PM_SUPPLY] : [holder.address];
    const address = await deploy(name, args);
    const code = await pub.getCode({ address });
    if (!code) throw new Error('no code');
    const artifact = loadArtifact(name);
    expect(code.length).toBe(artifact.deployedBytecode.length);
    expect(runtimeCodeHashOf(artifact, code)).toBe(artifact.runtimeCodeHash);
    // EIP712 caches chain id, address and domain separator in immutables, so the raw hash must differ.
    expect(artifact.immutableReferences.length).toBeGreaterThan(0);
    expect(keccak256(code)).not.toBe(artifact.runtimeCodeHash);
    expect(artifact.sourceName).toMatch(new RegExp(`^contracts/.+/${name}\\.sol$`));
  });

  it('artifactParityHash covers exactly the runtime code hashes of CONTRACT_NAMES', () => {
    const hashes = CONTRACT_NAMES.map((n) => loadArtifact(n).runtimeCodeHash).sort();
    expect(artifactParityHash()).toBe(keccak256(concat(hashes)));
  });

  // The full recompile (npm run check:contracts, a step of .ci/run) takes ~10 s; this catches the usual miss, a source
  // edited without `npm run build:contracts`, in milliseconds.
  it('the committed artifacts were built from the sources in the tree (sourceHash)', () => {
    const index = JSON.parse(readFileSync(path.join(ROOT, 'artifacts', 'index.json'), 'utf8')) as { sourceHash: string };
    expect(sourceHash(sourceTree()), 'contracts/ changed since the artifacts were built: run npm run build:contracts').toBe(index.sourceHash);
  });
});
