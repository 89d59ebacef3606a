/**
 * Funds a wallet with collateral from the operator on a development chain: TestUSDC is minted (the operator
 * owns it) and PM is transferred from the operator's supply. Used by `svc seed` and the test suites; each
 * transfer goes through the relayer under an operation id the caller makes unique, so a retry never pays twice.
 */
import { encodeFunctionData, erc20Abi, type Address } from 'viem';
import { loadArtifact } from './artifacts.ts';
import type { Relayer } from './relayer.ts';

export async function fundFromOperator(
  relayer: Relayer,
  tokens: { USDC: Address; PM: Address },
  to: Address,
  amounts: { usdc?: bigint; pm?: bigint },
  operationId: string,
): Promise<void> {
  const send = async (suffix: string, token: Address, data: `0x${string}`) => {
    const id = `${operationId}:${suffix}`;
    const tx = await relayer.send({ operationId: id, idempotencyKey: id, to: token, data });
    if (tx.state !== 'confirmed') throw new Error(`funding ${to}: ${suffix} ended in state ${tx.state}`);
  };
  if (amounts.usdc && amounts.usdc > 0n) {
    await send('usdc', tokens.USDC, encodeFunctionData({ abi: loadArtifact('TestUSDC').abi, functionName: 'mint', args: [to, amounts.usdc] }));
  }
  if (amounts.pm && amounts.pm > 0n) {
    await send('pm', tokens.PM, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amounts.pm] }));
  }
}
