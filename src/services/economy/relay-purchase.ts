/**
 * POST /economy/relay-purchase (docs/economy.md "Relay"): PM for USDC with the buyer's EIP-2612 permit, submitted by
 * the relayer so the buyer pays no gas. Every refusal the sale contract would make is checked first from the chain,
 * in the contract's order, and answered with its code; then the call is simulated (a bad permit, a passed deadline:
 * 409 RELAY_REVERTED, no gas spent); then sent, under an operation id derived from the permit signature, so a retry of
 * the same permit finds the same transaction instead of sending another. The purchase and the request's
 * Idempotency-Key record commit in one transaction once the chain has mined it.
 */
import { BaseError, ContractFunctionRevertedError, decodeEventLog, encodeFunctionData, erc20Abi, keccak256, concat, type Address, type Hex } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import { pmForUsdc } from '../../core/economy/terms.ts';
import { problem } from '../../core/error-codes.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { EconomyDeps } from './deps.ts';
import { readSaleState } from './sale-state.ts';

export interface RelayPurchaseInput {
  paymentAmount: bigint;
  minPmOut: bigint;
  deadline: number;
  v: number;
  r: Hex;
  s: Hex;
}

export interface RelayPurchaseResult {
  chainId: number;
  txHash: string;
  blockNumber: string;
  buyer: string;
  paymentAmount: string;
  minPmOut: string;
  pmReceived: string;
  sale: string;
  createdAt: string;
  statusUrl: string;
}

const conflict = (code: 'SALE_PAUSED' | 'SALE_INVENTORY_SHORT' | 'QUOTE_MISMATCH' | 'INSUFFICIENT_PAYMENT_BALANCE' | 'RELAY_REVERTED', detail: string, extensions: Record<string, unknown> = {}) =>
  problem(code, detail, { extensions });

/** The sale contract's custom errors, as the codes the spec names. */
const REVERT_CODES: Record<string, 'SALE_PAUSED' | 'SALE_INVENTORY_SHORT' | 'QUOTE_MISMATCH' | 'INSUFFICIENT_PAYMENT_BALANCE'> = {
  EnforcedPause: 'SALE_PAUSED',
  InventoryShort: 'SALE_INVENTORY_SHORT',
  QuoteMismatch: 'QUOTE_MISMATCH',
  InsufficientPaymentBalance: 'INSUFFICIENT_PAYMENT_BALANCE',
};

export async function relayPurchase(deps: EconomyDeps, buyerWallet: string, input: RelayPurchaseInput, recordEffect: EffectRecorder | null): Promise<RelayPurchaseResult> {
  const buyer = buyerWallet.toLowerCase() as Address;
  const sale = await readSaleState(deps);
  if (!sale.address) throw problem('SERVICE_UNAVAILABLE', 'the PM sale contract is not deployed on this chain', { extensions: { reason: 'SALE_NOT_DEPLOYED' } });
  if (input.paymentAmount < sale.minPayment) {
    throw problem('AMOUNT_BELOW_MINIMUM', `paymentAmount ${input.paymentAmount} is below the sale's minimum of ${sale.minPayment} USDC base units`, {
      extensions: { minPaymentAmount: sale.minPayment.toString() },
    });
  }
  if (sale.paused) throw conflict('SALE_PAUSED', 'the PM sale is paused; GET /economy/purchase-terms shows when it is open');
  const pmOut = pmForUsdc(input.paymentAmount, sale.priceUsdcPerPm);
  if (pmOut === 0n || pmOut < input.minPmOut) {
    throw conflict('QUOTE_MISMATCH', `paymentAmount buys ${pmOut} PM base units at the current price, less than minPmOut ${input.minPmOut}; quote again from GET /economy/purchase-terms`, {
      pmOut: pmOut.toString(),
      usdcPerPm: sale.priceUsdcPerPm.toString(),
    });
  }
  if (sale.inventory < pmOut) {
    throw conflict('SALE_INVENTORY_SHORT', `the sale holds ${sale.inventory} PM base units, less than the ${pmOut} this purchase buys`, { inventoryWei: sale.inventory.toString(), pmOut: pmOut.toString() });
  }
  const balance = await deps.guard(() => deps.client.readContract({ address: deps.tokens.USDC, abi: erc20Abi, functionName: 'balanceOf', args: [buyer] }));
  if (balance < input.paymentAmount) {
    throw conflict('INSUFFICIENT_PAYMENT_BALANCE', `the wallet holds ${balance} USDC base units, less than paymentAmount ${input.paymentAmount}`, { balance: balance.toString() });
  }

  const abi = loadArtifact('PmSale').abi;
  const args = [buyer, input.paymentAmount, input.minPmOut, BigInt(input.deadline), input.v, input.r, input.s] as const;
  const operationId = `pm-relay:${deps.chainId}:${keccak256(concat([input.r, input.s]))}`;
  // A retry of a permit already sent goes straight to its transaction: simulating it again would fail (its nonce is spent).
  if (!(await deps.relayer.get(operationId))) {
    try {
      await deps.guard(() => deps.client.simulateContract({ address: sale.address!, abi, functionName: 'buyWithPermit', args, account: deps.relayer.address } as never));
    } catch (err) {
      throw simulationRefusal(err);
    }
  }
  const data = encodeFunctionData({ abi, functionName: 'buyWithPermit', args } as never);
  const tx = await deps.relayer.send({ operationId, idempotencyKey: operationId, to: sale.address, data });
  if (tx.state !== 'confirmed') {
    throw conflict('RELAY_REVERTED', `the purchase transaction ${tx.txHash} ended ${tx.state}; no USDC moved`, { txHash: tx.txHash });
  }
  const receipt = await deps.guard(() => deps.client.getTransactionReceipt({ hash: tx.txHash }));
  const purchased = receipt.logs
    .filter((log) => log.address.toLowerCase() === sale.address!.toLowerCase())
    .map((log) => {
      try {
        return decodeEventLog({ abi, data: log.data, topics: log.topics });
      } catch {
        return null;
      }
    })
    .find((e) => e?.eventName === 'Purchased');
  const pmReceived = (purchased?.args as { pmOut?: bigint } | undefined)?.pmOut;
  if (pmReceived === undefined) throw new Error(`relay purchase ${tx.txHash}: confirmed without a Purchased event`);
  const createdAt = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('relay_purchases')
      .values({
        tx_hash: tx.txHash.toLowerCase(),
        operation_id: operationId,
        chain_id: deps.chainId,
        buyer,
        payment_amount: input.paymentAmount,
        min_pm_out: input.minPmOut,
        pm_out: pmReceived,
        block_number: receipt.blockNumber,
        created_at: createdAt,
      })
      .onConflict((oc) => oc.column('tx_hash').doNothing())
      .execute();
    await recordEffect?.(trx, tx.txHash.toLowerCase());
  });
  return recordedRelayPurchase(deps, tx.txHash.toLowerCase());
}

/** The purchase a keyed request made (its answer was lost), from its row. */
export async function recordedRelayPurchase(deps: EconomyDeps, txHash: string): Promise<RelayPurchaseResult> {
  const row = await deps.db.selectFrom('relay_purchases').selectAll().where('tx_hash', '=', txHash).executeTakeFirstOrThrow();
  return {
    chainId: row.chain_id,
    txHash: row.tx_hash,
    blockNumber: row.block_number,
    buyer: row.buyer,
    paymentAmount: row.payment_amount,
    minPmOut: row.min_pm_out,
    pmReceived: row.pm_out,
    sale: deps.sale!,
    createdAt: row.created_at.toISOString(),
    statusUrl: `/api/v1/transactions/${row.tx_hash}?chainId=${row.chain_id}`,
  };
}

/** A simulated revert as its code: the contract's own error when it names one the spec lists, else RELAY_REVERTED. */
function simulationRefusal(err: unknown) {
  if (err instanceof BaseError) {
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) {
      const name = reverted.data?.errorName;
      const code = name ? REVERT_CODES[name] : undefined;
      if (code) return conflict(code, `the sale contract refused the purchase (${name})`);
      return conflict('RELAY_REVERTED', `the purchase would revert (${name ?? reverted.reason ?? 'no reason'}): check the permit (signed by the buyer for spender = the sale contract, value = paymentAmount, the token's current nonce) and its deadline`, {
        revert: name ?? reverted.reason ?? null,
      });
    }
  }
  throw err;
}
