import { erc20Abi, type Address, type Hex } from 'viem';
import { approvalCalldata } from '../approvals.ts';
import type { ChainService } from '../../chain/chain-service.ts';
import type { Charges } from './charges.ts';

/** An approval the creator still has to send: the factory is the spender, for the exact amount it pulls. */
export interface CreationApproval {
  kind: 'erc20_approve';
  reason: 'create_market';
  chainId: number;
  token: Address;
  spender: Address;
  /** The exact amount the factory pulls (subsidy, bond, or both when the collateral is PM). */
  amount: string;
  /** Ready to sign and send from the creator's wallet: approve(spender, amount) on `token`. */
  transaction: { chainId: number; to: Address; data: Hex; value: '0' };
}

export interface BalanceShort {
  token: Address;
  symbol: string;
  required: string;
  balance: string;
}

export interface Readiness {
  approvalsMissing: CreationApproval[];
  balancesShort: BalanceShort[];
}

/** What the factory pulls, per token: subsidy and bond add up when the collateral is PM. */
function pullsPerToken(c: Charges): Map<Address, { symbol: string; amount: bigint }> {
  const needs = new Map<Address, { symbol: string; amount: bigint }>();
  const add = (token: Address, symbol: string, amount: bigint) => {
    const prev = needs.get(token);
    needs.set(token, { symbol, amount: (prev?.amount ?? 0n) + amount });
  };
  if (BigInt(c.subsidy.amount) > 0n) add(c.subsidy.token, c.subsidy.symbol, BigInt(c.subsidy.amount));
  if (BigInt(c.bond.amount) > 0n) add(c.bond.token, 'PM', BigInt(c.bond.amount));
  return needs;
}

/** What the factory will pull, per token, against what the creator has approved and holds. */
export async function readinessOf(chain: ChainService, owner: Address, c: Charges): Promise<Readiness> {
  const approvalsMissing: CreationApproval[] = [];
  const balancesShort: BalanceShort[] = [];
  for (const [token, need] of pullsPerToken(c)) {
    const [allowance, balance] = await chain.guard(() =>
      Promise.all([
        chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, c.factory] }),
        chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
      ]),
    );
    if (allowance < need.amount) {
      const recipe = { kind: 'erc20_approve' as const, reason: 'create_market' as const, chainId: chain.chainId, token, spender: c.factory, amount: need.amount.toString() };
      approvalsMissing.push({ ...recipe, transaction: { chainId: chain.chainId, to: token, data: approvalCalldata(recipe), value: '0' } });
    }
    if (balance < need.amount) balancesShort.push({ token, symbol: need.symbol, required: need.amount.toString(), balance: balance.toString() });
  }
  return { approvalsMissing, balancesShort };
}
