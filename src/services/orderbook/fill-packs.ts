/**
 * Buying fill packs (docs/orderbook.md "Fill allowance"). A pack is priced in US cents and paid in USDC on
 * chain: the agent's bound wallet sends `usdCents × 10^(decimals − 2)` USDC to the operator (the protocol
 * treasury) in an ERC-20 transfer, then names the transaction. The service reads the receipt from the node,
 * finds a Transfer log of exactly that amount from the agent's wallet to the operator, and credits the pack's
 * fills to `agents.paid_fills_remaining` once, in one database transaction with the purchase row. Only the
 * exact transfer call the offer hands out counts (sent by the wallet to the token): a transfer to the operator
 * made inside another call — a trade's protocol fee goes to the same address — pays for nothing. Under an
 * Idempotency-Key the crediting transaction records the purchase (by id), so a retry after a crash answers that
 * purchase instead of PAYMENT_ALREADY_CLAIMED.
 */
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, erc20Abi, parseEventLogs, type Address, type Hex } from 'viem';
import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import type { FillAllowance, FillPack } from '../../core/fill-allowance.ts';
import type { DB, FillPackPurchasesTable } from '../../db/schema.ts';
import type { Principal } from '../../core/principal.ts';
import type { Logger } from '../../core/logger.ts';
import type { ChainService, CollateralToken } from '../chain/chain-service.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { requireAgent } from '../identity/agents.ts';
import { pmForUsdc } from '../../core/economy/terms.ts';
import { readFillAllowance } from '../identity/profile.ts';

export interface FillPackPayment {
  /** What to pay: `amount` base units of `token` to `payTo`, on `chainId`. */
  payment: { chainId: number; symbol: 'USDC' | 'PM'; token: Address; decimals: number; amount: string; payTo: Address };
  /** The ERC-20 transfer to sign and send from the agent's bound wallet. */
  transaction: { chainId: number; to: Address; data: Hex; value: '0' };
}

/** A pack with its USDC payment (`payment`, `transaction`) and every way to pay it (`payments`: USDC, then PM). */
export interface FillPackOffer extends FillPack, FillPackPayment {
  payments: FillPackPayment[];
}

export interface FillPackPurchase {
  id: string;
  fills: number;
  usdCents: number;
  chainId: number;
  txHash: string;
  logIndex: number;
  payer: string;
  token: string;
  amount: string;
  createdAt: string;
}

export interface FillPackService {
  /** The packs on offer, cheapest first, each with its payment and the transfer that pays it. */
  offers(): { enabled: boolean; confirmations: number; packs: FillPackOffer[] };
  /**
   * Credits the pack paid by `txHash` (its fills, once per transfer log); answers the purchase and the new allowance.
   * `recordEffect`, under an Idempotency-Key, is called inside the crediting transaction with the purchase id.
   */
  purchase(principal: Principal, input: { fills: number; txHash: Hex }, recordEffect?: EffectRecorder): Promise<PurchaseResult>;
  /** One of the agent's purchases with its allowance as it is now (the answer a retry of the purchase gets after a crash). */
  purchased(principal: Principal, purchaseId: string): Promise<PurchaseResult>;
}

export interface PurchaseResult {
  purchase: FillPackPurchase;
  allowance: FillAllowance;
}

/** Base units of a token with `decimals` decimals that make `usdCents` US cents (a stablecoin at par). */
export function centsToBaseUnits(usdCents: number, decimals: number): bigint {
  if (decimals < 2) throw new RangeError(`a token with ${decimals} decimals cannot express cents`);
  return BigInt(usdCents) * 10n ** BigInt(decimals - 2);
}

/** The most purchased fills an agent can hold (agents.paid_fills_remaining is a 32-bit integer). */
export const MAX_PAID_FILLS = 2_147_483_647;

export function createFillPackService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  chain: ChainService;
  log: Logger;
  /** Receives pack payments: the operator's address, the protocol treasury. */
  payTo: Address;
  /** PM's published price (USDC base units per PM, docs/economy.md): a pack's PM price is its USDC price at it. */
  priceUsdcPerPm: bigint;
  fills: { enabled: boolean; freePerMonth: number; packs: readonly FillPack[]; packConfirmations: number };
}): FillPackService {
  const { db, clock, chain } = deps;
  const usdc = (): CollateralToken => {
    const token = chain.collateral().find((c) => c.symbol === 'USDC' && c.enabled);
    if (!token) throw problem('FEATURE_DISABLED', 'fill packs are paid in USDC, which this service does not have configured', { extensions: { reason: 'FILL_PACKS_UNAVAILABLE' } });
    return token;
  };

  const pm = (): CollateralToken | undefined => chain.collateral().find((c) => c.symbol === 'PM' && c.enabled);
  const paymentOf = (token: CollateralToken, amount: bigint): FillPackPayment => ({
    payment: { chainId: chain.chainId, symbol: token.symbol as 'USDC' | 'PM', token: token.token, decimals: token.decimals, amount: amount.toString(), payTo: deps.payTo },
    transaction: { chainId: chain.chainId, to: token.token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [deps.payTo, amount] }), value: '0' },
  });
  const offerOf = (pack: FillPack, token: CollateralToken): FillPackOffer => {
    const usdcAmount = centsToBaseUnits(pack.usdCents, token.decimals);
    const byUsdc = paymentOf(token, usdcAmount);
    const pmToken = pm();
    // The pack's USDC price bought at PM's published price (floor, as the sale contract quotes).
    const byPm = pmToken ? paymentOf(pmToken, pmForUsdc(usdcAmount, deps.priceUsdcPerPm)) : null;
    return { fills: pack.fills, usdCents: pack.usdCents, ...byUsdc, payments: byPm ? [byUsdc, byPm] : [byUsdc] };
  };

  return {
    offers() {
      const token = usdc();
      return { enabled: deps.fills.enabled, confirmations: deps.fills.packConfirmations, packs: deps.fills.packs.map((p) => offerOf(p, token)) };
    },

    async purchase(principal, input, recordEffect) {
      const agent = await requireAgent(db, principal);
      if (!agent.wallet_address) throw problem('WALLET_NOT_BOUND', 'a fill pack is paid from the wallet bound to your agent: bind one (POST /agents/me/bind-wallet)');
      if (!deps.fills.enabled) throw problem('FEATURE_DISABLED', 'fills are not counted on this service (FILLS_ENABLED is false): there is nothing to buy', { extensions: { reason: 'FILLS_DISABLED' } });
      const pack = deps.fills.packs.find((p) => p.fills === input.fills);
      if (!pack) throw problem('FILL_PACK_NOT_FOUND', `no pack of ${input.fills} fills is offered; offered: ${deps.fills.packs.map((p) => p.fills).join(', ')} (GET /orderbook/fill-packs)`);
      const offer = offerOf(pack, usdc());
      const wallet = agent.wallet_address.toLowerCase();
      const txHash = input.txHash.toLowerCase() as Hex;

      // Not found is an answer; a node that does not answer is SERVICE_UNAVAILABLE, never "not found".
      const tx = await chain.transactionOf(txHash);
      if (!tx) throw problem('PAYMENT_TX_NOT_FOUND', `the chain node does not know transaction ${txHash} on chain ${chain.chainId}`);
      const receipt = await chain.receiptOf(txHash);
      if (!receipt) throw problem('PAYMENT_TX_PENDING', `transaction ${txHash} is not mined yet; retry when it is`, { headers: { 'Retry-After': '2' } });
      if (receipt.status !== 'success') throw problem('PAYMENT_TX_REVERTED', `transaction ${txHash} reverted; nothing was paid`);
      const head = await chain.head();
      const confirmations = Number(head.blockNumber - receipt.blockNumber + 1n);
      if (confirmations < deps.fills.packConfirmations) {
        throw problem('PAYMENT_TX_PENDING', `transaction ${txHash} has ${confirmations} of the ${deps.fills.packConfirmations} confirmations a pack payment needs; retry shortly`, {
          headers: { 'Retry-After': '2' },
          extensions: { confirmations, required: deps.fills.packConfirmations },
        });
      }

      // Only one of the offer's own transactions pays: the bound wallet calling USDC.transfer(operator, price) or
      // PM.transfer(operator, price at PM's price) itself. A transfer to the operator made inside another call (a
      // trade's protocol fee, a transferFrom) is not a payment.
      const mismatch = (why: string) =>
        problem('PAYMENT_TX_MISMATCH', `transaction ${txHash} does not pay the ${pack.fills}-fill pack: ${why}; send one of the transactions GET /orderbook/fill-packs gives (${offer.payments.map((p) => `a transfer of ${p.payment.amount} ${p.payment.symbol} base units`).join(' or ')} to ${deps.payTo}) from your wallet ${wallet}`);
      if (tx.from.toLowerCase() !== wallet) throw mismatch(`it was sent by ${tx.from.toLowerCase()}, not your bound wallet`);
      const paid = offer.payments.find((p) => tx.to?.toLowerCase() === p.payment.token.toLowerCase() && tx.input.toLowerCase() === p.transaction.data.toLowerCase());
      if (!paid) throw mismatch('it is not one of those exact transfer calls');
      const amount = BigInt(paid.payment.amount);
      const payments = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' }).filter(
        (l) => l.address.toLowerCase() === paid.payment.token.toLowerCase() && l.args.from.toLowerCase() === wallet && l.args.to.toLowerCase() === deps.payTo.toLowerCase() && l.args.value === amount,
      );
      if (payments.length !== 1) throw mismatch('the token did not log exactly that one transfer');

      const now = clock.now();
      const purchase = await db.transaction().execute(async (trx) => {
        // One pack per payment: the transfer log is claimed once (chain, transaction, log index).
        for (const l of payments) {
          const row = await trx
            .insertInto('fill_pack_purchases')
            .values({
              id: randomUUID(),
              agent_id: agent.id,
              chain_id: chain.chainId,
              tx_hash: txHash,
              log_index: l.logIndex,
              block_number: receipt.blockNumber,
              payer: wallet,
              token: paid.payment.token.toLowerCase(),
              amount,
              fills: pack.fills,
              usd_cents: pack.usdCents,
              created_at: now,
            })
            .onConflict((oc) => oc.columns(['chain_id', 'tx_hash', 'log_index']).doNothing())
            .returningAll()
            .executeTakeFirst();
          if (!row) continue;
          const credited = await trx
            .updateTable('agents')
            .set({ paid_fills_remaining: sql`paid_fills_remaining + ${pack.fills}` })
            .where('id', '=', agent.id)
            .where('paid_fills_remaining', '<=', MAX_PAID_FILLS - pack.fills)
            .returning('id')
            .executeTakeFirst();
          // Rolls the purchase row back with it: the payment stays unclaimed.
          if (!credited) throw problem('FILL_PACK_LIMIT', `an agent holds at most ${MAX_PAID_FILLS} purchased fills; spend some before buying ${pack.fills} more`);
          await recordEffect?.(trx, row.id);
          return row;
        }
        return null;
      });
      if (!purchase) throw problem('PAYMENT_ALREADY_CLAIMED', `transaction ${txHash} has already paid for a pack`);
      deps.log.info({ agentId: agent.id, fills: pack.fills, txHash, logIndex: purchase.log_index }, 'fill pack purchased');
      return resultOf(purchase);
    },

    async purchased(principal, purchaseId) {
      const agent = await requireAgent(db, principal);
      return resultOf(await db.selectFrom('fill_pack_purchases').selectAll().where('id', '=', purchaseId).where('agent_id', '=', agent.id).executeTakeFirstOrThrow());
    },
  };

  /** The purchase and its agent's allowance as it is now. */
  async function resultOf(purchase: Selectable<FillPackPurchasesTable>): Promise<PurchaseResult> {
    const paid = await db.selectFrom('agents').select('paid_fills_remaining').where('id', '=', purchase.agent_id).executeTakeFirstOrThrow();
    return {
      purchase: {
        id: purchase.id,
        fills: purchase.fills,
        usdCents: purchase.usd_cents,
        chainId: purchase.chain_id,
        txHash: purchase.tx_hash,
        logIndex: purchase.log_index,
        payer: purchase.payer,
        token: purchase.token,
        amount: purchase.amount,
        createdAt: purchase.created_at.toISOString(),
      },
      allowance: await readFillAllowance({ db, clock, fills: deps.fills }, purchase.agent_id, paid.paid_fills_remaining),
    };
  }
}
