/**
 * The PM sale contract (docs/economy.md "Sale contract"): deployed once per chain and owned by the operator, its
 * price and minimum kept equal to the configuration (PM_PRICE_USDC, PM_RELAY_MIN_PAYMENT), and given its inventory
 * once (PM_SALE_INVENTORY moved from the operator's PM supply). Every wiring transaction is named by what it changes,
 * so a retry after a crash sends nothing twice, and an SVC_ROLE=api process reads the record without wiring anything.
 */
import { encodeFunctionData, erc20Abi, type Address, type PublicClient } from 'viem';
import { loadArtifact } from './artifacts.ts';
import { ensureDeployments, type DeploymentRecord } from './deployer.ts';

export const PM_SALE_DEPLOYMENT = 'PmSale';

export async function ensurePmSale(
  deps: Parameters<typeof ensureDeployments>[0] extends infer D ? Omit<D, 'specs'> : never,
  sale: { operator: Address; treasury: Address; tokens: { PM: Address; USDC: Address }; priceUsdcPerPm: bigint; minPayment: bigint; inventory: bigint; progress: (line: string) => void },
): Promise<DeploymentRecord> {
  const args = [sale.operator, sale.tokens.PM, sale.tokens.USDC, sale.treasury, sale.priceUsdcPerPm, sale.minPayment];
  const record = (await ensureDeployments({ ...deps, specs: [{ name: PM_SALE_DEPLOYMENT, contract: 'PmSale', args }] }))[PM_SALE_DEPLOYMENT]!;
  if (deps.mayDeploy === false) return record;
  const client = deps.client as PublicClient;
  const abi = loadArtifact('PmSale').abi;
  const read = <T>(functionName: string) => client.readContract({ address: record.address, abi, functionName } as never) as Promise<T>;
  const send = async (operationId: string, to: Address, data: `0x${string}`) => {
    const id = `wire:${deps.chainId}:${operationId}`;
    const tx = await deps.relayer.send({ operationId: id, idempotencyKey: id, to, data });
    if (tx.state !== 'confirmed') throw new Error(`PM sale: ${operationId} ended in state ${tx.state} (tx ${tx.txHash})`);
  };
  const [price, minPayment] = await Promise.all([read<bigint>('priceUsdcPerPm'), read<bigint>('minPayment')]);
  if (price !== sale.priceUsdcPerPm) {
    await send(`PmSale.setPrice.${price}->${sale.priceUsdcPerPm}`, record.address, encodeFunctionData({ abi, functionName: 'setPrice', args: [sale.priceUsdcPerPm] } as never));
    sale.progress(`chain: PM sale price set to ${sale.priceUsdcPerPm} USDC base units per PM`);
  }
  if (minPayment !== sale.minPayment) {
    await send(`PmSale.setMinPayment.${minPayment}->${sale.minPayment}`, record.address, encodeFunctionData({ abi, functionName: 'setMinPayment', args: [sale.minPayment] } as never));
  }
  // Once per deployment: a sale that sold out is topped up by the operator on purpose, not by every restart.
  if (sale.inventory > 0n) {
    const id = `wire:${deps.chainId}:PmSale.inventory.${record.address.toLowerCase()}`;
    if (!(await deps.relayer.get(id))) {
      const balance = await client.readContract({ address: sale.tokens.PM, abi: erc20Abi, functionName: 'balanceOf', args: [record.address] });
      if (balance === 0n) {
        await send(`PmSale.inventory.${record.address.toLowerCase()}`, sale.tokens.PM, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [record.address, sale.inventory] }));
        sale.progress(`chain: PM sale stocked with ${sale.inventory / 10n ** 18n} PM`);
      }
    }
  }
  return record;
}
