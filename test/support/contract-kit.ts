// What the contract suites share: viem clients on a test anvil (chain id 8453) and deploy, read, send and
// revert-decoding helpers over the committed artifacts (with every custom error of the lane in the ABI).
import { BaseError, ContractFunctionRevertedError, createPublicClient, createWalletClient, getAddress, http, type Address, type PrivateKeyAccount, type TransactionReceipt } from 'viem';
import { foundry } from 'viem/chains';
import { expect } from 'vitest';
import { abiWithAllErrors, loadArtifact, type ContractName } from '../../src/chain/artifacts.ts';
import { gasWithHeadroom } from '../../src/chain/gas.ts';

export const TEST_CHAIN = { ...foundry, id: 8453 };

export function contractKit(rpcUrl: string, deployer: PrivateKeyAccount) {
  const pub = createPublicClient({ chain: TEST_CHAIN, transport: http(rpcUrl), pollingInterval: 20 });
  const wallet = (account: PrivateKeyAccount) => createWalletClient({ chain: TEST_CHAIN, transport: http(rpcUrl), account, pollingInterval: 20 });

  async function deploy(name: ContractName, args: readonly unknown[]): Promise<Address> {
    const { abi, bytecode } = loadArtifact(name);
    const hash = await wallet(deployer).deployContract({ abi, bytecode, args });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    if (!receipt.contractAddress || receipt.status !== 'success') throw new Error(`deploying ${name} failed`);
    return getAddress(receipt.contractAddress);
  }

  const read = <T>(name: ContractName, address: Address, functionName: string, args: readonly unknown[] = []): Promise<T> =>
    pub.readContract({ address, abi: abiWithAllErrors(name), functionName, args }) as Promise<T>;

  /**
   * Sends the call and waits for its receipt (a revert fails the test, with why). Its gas limit has the headroom the
   * service's transactions have (src/chain/gas.ts): with the bare estimate, round 2's openVote estimated in round 1's
   * second ran out of gas a second later (sessions 17 and 28 saw it, once in a whole suite each;
   * test/contracts/resolution.test.ts pins it with `afterEstimate`, which runs between the estimate and the send).
   */
  async function send(
    name: ContractName,
    address: Address,
    from: PrivateKeyAccount,
    functionName: string,
    args: readonly unknown[],
    opts: { afterEstimate?: () => Promise<void> } = {},
  ): Promise<TransactionReceipt> {
    const abi = abiWithAllErrors(name);
    const estimate = await pub.estimateContractGas({ address, abi, functionName, args, account: from });
    await opts.afterEstimate?.();
    const hash = await wallet(from).writeContract({ address, abi, functionName, args, gas: gasWithHeadroom(estimate) });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') expect.fail(await whyReverted(name, address, from, functionName, args, receipt).catch((err: Error) => `${functionName} reverted (no diagnosis: ${err.message})`));
    return receipt;
  }

  /**
   * What a reverted transaction's assertion says: its gas used against its limit (all of it: out of gas) and the error
   * the same call decodes to when run again on the state before its block. A rare failure in a long run can then be
   * told apart after the fact (it told the out-of-gas openVote of `send` above).
   */
  async function whyReverted(name: ContractName, address: Address, from: PrivateKeyAccount, functionName: string, args: readonly unknown[], receipt: TransactionReceipt): Promise<string> {
    const tx = await pub.getTransaction({ hash: receipt.transactionHash });
    const replay = await revertOf(name, address, from, functionName, args, receipt.blockNumber - 1n).then(
      (r) => `replayed on the block before: ${r.errorName}`,
      (err: Error) => `replayed on the block before: ${err.message.split('\n')[0]}`,
    );
    return `${functionName} reverted in block ${receipt.blockNumber}: gas used ${receipt.gasUsed} of ${tx.gas}; ${replay}`;
  }

  /** Runs the call as `from` via eth_call (on the latest block, or `blockNumber`) and returns the decoded custom error it reverts with. */
  async function revertOf(name: ContractName, address: Address, from: PrivateKeyAccount, functionName: string, args: readonly unknown[], blockNumber?: bigint) {
    try {
      await pub.simulateContract({ address, abi: abiWithAllErrors(name), functionName, args, account: from, ...(blockNumber === undefined ? {} : { blockNumber }) });
    } catch (err) {
      const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
      if (reverted instanceof ContractFunctionRevertedError) return { errorName: reverted.data?.errorName, args: reverted.data?.args ?? [] };
      throw err;
    }
    throw new Error(`${functionName} did not revert`);
  }

  const now = async (): Promise<bigint> => (await pub.getBlock()).timestamp;

  return { pub, wallet, deploy, read, send, revertOf, now };
}
